"""Section: the raw outcome per roll setting (mean and SD)."""

from __future__ import annotations

from engines.system import registry
from reports import plotting
from reports.i18n import _, decimal
from reports.sections.common import figure_block, outcomes, table_block
from reports.sections.success_curves import TR
from reports.settings import ReportSettings
from reports.structure import Section

__all__ = ["section_outcomes"]


def section_outcomes(settings: ReportSettings) -> Section:
    """Mean and SD of each roll setting's raw outcome (exact), with the MC mean ± SE."""
    blocks: list = []
    reading = [
        _(
            "The average and spread (standard deviation) of what the dice produce "
            "before any target is applied. A larger SD relative to the mean is a "
            "swingier system: outcomes depend more on luck than on the character."
        )
    ]
    for system in settings.systems:
        o = outcomes(settings, system)
        spec = registry()[system]
        setting_label, value_label = (_(x) for x in spec.report.outcome_labels)
        frame = o.rename(columns={"setting": setting_label})[
            [setting_label, "mean", "sd", "mean_mc", "se_mean"]
        ]
        blocks.append(
            table_block(
                f"outcomes-{system}",
                f"{system}: {value_label}",
                frame,
                _(
                    "Exact mean and SD of the {value} per {setting}, "
                    "beside the Monte Carlo mean ({trials} rolls) and its "
                    "standard error."
                ).format(value=value_label, setting=setting_label, trials=decimal(settings.trials)),
                index=(setting_label,),
                formats={"mean": ".3f", "sd": ".3f", "mean_mc": ".3f", "se_mean": ".3f"},
            )
        )
        if spec.report.outcome_reading is not None:
            m = o.set_index("setting")
            reading.append(
                spec.report.outcome_reading(lambda setting, stat, m=m: m.loc[setting, stat], TR)
            )
    pools = [s for s in settings.systems if registry()[s].report.pool_settings]
    if pools:
        fig, (ax,) = plotting.new_figure(1, width=6.4, height=3.0)
        for system in pools:
            o = outcomes(settings, system)
            colour = plotting.system_color(system)
            ax.plot(
                o["setting"],
                o["mean"],
                color=colour,
                marker="o",
                markersize=3,
                label=_("{system} mean").format(system=system),
            )
            ax.fill_between(
                o["setting"].astype(float),
                o["mean"] - o["sd"],
                o["mean"] + o["sd"],
                color=colour,
                alpha=0.2,
                label=_("{system} ± 1 SD").format(system=system),
            )
        ax.set_xlabel(_("pool size (number of d10)"))
        ax.set_xticks(range(0, 21, 2))
        ax.set_ylabel(_("successes rolled (count)"))
        ax.legend(loc="upper left")
        blocks.insert(
            0,
            figure_block(
                "fig-outcomes",
                _("Successes per pool"),
                fig,
                _(
                    "Exact mean successes (line) ± one standard deviation "
                    "(band) against pool size for the dice-pool systems."
                ),
                _("Mean and spread of successes against pool size"),
                settings,
            ),
        )
    return Section("outcomes", _("Outcome mean and spread"), reading, blocks)
