"""Section: the raw outcome per roll setting (mean and SD)."""

from __future__ import annotations

from reports import plotting
from reports.i18n import N_, _, decimal
from reports.sections.common import _figure, _table, outcomes
from reports.settings import ReportSettings
from reports.structure import Section

OUTCOME_MEANING = {
    "dice_pool_7": (N_("pool (dice)"), N_("successes rolled")),
    "dice_pool_6": (N_("pool (dice)"), N_("successes rolled (a pair of 10s = 4)")),
    "middle_3d10": (N_("roll"), N_("kept die (1–10)")),
    "percentile": (N_("net bonus (+) / penalty (−) dice"), N_("d100 result (1–100)")),
    "d20_degrees": (N_("roll"), N_("d20 result (1–20)")),
}


def section_outcomes(settings: ReportSettings) -> Section:
    """Mean and SD of each roll setting's raw outcome (exact), with the MC mean ± SE."""
    blocks: list = []
    reading = [_("The average and spread (standard deviation) of what the dice produce "
                 "before any target is applied. A larger SD relative to the mean is a "
                 "swingier system: outcomes depend more on luck than on the character.")]
    for system in settings.systems:
        o = outcomes(settings, system)
        setting_label, value_label = (_(x) for x in OUTCOME_MEANING[system])
        frame = o.rename(columns={"setting": setting_label})[
            [setting_label, "mean", "sd", "mean_mc", "se_mean"]]
        blocks.append(_table(f"outcomes-{system}", f"{system}: {value_label}", frame,
                             _("Exact mean and SD of the {value} per {setting}; mean_mc ± "
                               "se_mean is the Monte Carlo estimate ({trials} rolls) with "
                               "its standard error.").format(
                                 value=value_label, setting=setting_label,
                                 trials=decimal(settings.trials)),
                             index=(setting_label,),
                             formats={"mean": ".4f", "sd": ".4f", "mean_mc": ".4f",
                                      "se_mean": ".5f"}))
        if system in ("dice_pool_7", "dice_pool_6"):
            p5 = o[o["setting"] == 5].iloc[0]
            reading.append(_("{system}: 5 dice average {mean} successes (SD {sd}); the "
                             "mean grows linearly with the pool and the SD like its square "
                             "root, so big pools are relatively steadier.").format(
                system=system, mean=decimal(p5["mean"], 2), sd=decimal(p5["sd"], 2)))
        elif system == "middle_3d10":
            m = o.set_index("setting")
            reading.append(_("middle_3d10: the kept middle die averages {mean} (SD {sd}), "
                             "advantage {adv}, disadvantage {dis}: advantage is worth "
                             "about {gain} points of modifier on average.").format(
                mean=decimal(m.loc["normal", "mean"], 2), sd=decimal(m.loc["normal", "sd"], 2),
                adv=decimal(m.loc["advantage", "mean"], 2),
                dis=decimal(m.loc["disadvantage", "mean"], 2),
                gain=decimal(m.loc["advantage", "mean"] - m.loc["normal", "mean"], 1)))
    pools = [s for s in settings.systems if s in ("dice_pool_7", "dice_pool_6")]
    if pools:
        fig, (ax,) = plotting.new_figure(1, width=6.4, height=3.0)
        for system in pools:
            o = outcomes(settings, system)
            colour = plotting.system_color(system)
            ax.plot(o["setting"], o["mean"], color=colour, marker="o", markersize=3,
                    label=_("{system} mean").format(system=system))
            ax.fill_between(o["setting"].astype(float), o["mean"] - o["sd"],
                            o["mean"] + o["sd"], color=colour, alpha=0.2,
                            label=_("{system} ± 1 SD").format(system=system))
        ax.set_xlabel(_("pool size (number of d10)"))
        ax.set_xticks(range(0, 21, 2))
        ax.set_ylabel(_("successes rolled (count)"))
        ax.legend(loc="upper left")
        blocks.insert(0, _figure("fig-outcomes", _("Successes per pool"), fig,
                                 _("Exact mean successes (line) ± one standard deviation "
                                   "(band) against pool size for the dice-pool systems."),
                                 _("Mean and spread of successes against pool size"),
                                 settings))
    return Section("outcomes", _("Outcome mean and spread"), reading, blocks)
