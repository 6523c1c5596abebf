"""The page's edits (a mixin of :class:`reports.workbench.app.Workbench`, shown in the
Duel tab): each side's traits, any field of the duel system's rules, the edits as a
rules file to download, and a rules file to load (:mod:`.model.edits`). The page
computes under ``serve --rules`` with its edits made over them (``self.rules``), and
every command it shows carries the edits (``--set``, ``--trait-a``)."""

from __future__ import annotations

import io
import re

import panel as pn

from engines.errors import InputError

from ..i18n import _, language
from ..rules_words import rules_sets
from . import model
from . import words as page_words
from .page_base import PageBase

__all__ = ["RulesTab"]


#: an article the catalogue puts before a trait's words ("a DES", "o TAM"): a field's
#: label names the trait alone
_ARTICLE = re.compile(r"^(?:the|a|o|as|os) (?=\S)")


def _trait_label(trait: str, side: str) -> str:
    """A trait field's label: the trait in words and its side ("DES (A)")."""
    return f"{_ARTICLE.sub('', page_words.value_words(trait))} ({side.upper()})"


class RulesTab(PageBase):
    """The widgets and callbacks of the page's edits."""

    # ------------------------------------------------------------------ state

    def _apply_edits(self) -> None:
        """``self.rules``: the page's base rules (``serve --rules``, kept as
        ``self._base_rules``) with the page's edits made (validated already: by
        :func:`.model.parse_query` under the same base, or by :func:`.model.with_edit`)."""
        if not hasattr(self, "_base_rules"):
            self._base_rules = tuple(self.rules)
        self.rules = rules_sets(model.page_rules(self._base_rules, self.state.edits))

    def _edit_words(self) -> list[str]:
        """The ``--set`` words of the page's edits (each shown command's)."""
        return model.edit_args(self.state.edits)

    # ------------------------------------------------------------------ building

    def _build_rules(self) -> None:
        self.r_traits = {"a": pn.FlexBox(), "b": pn.FlexBox()}
        self.r_trait_inputs: dict[str, dict[str, pn.widgets.TextInput]] = {"a": {}, "b": {}}
        self._r_trait_system: str | None = None
        self.r_field = pn.widgets.Select(label=_("Rule field"), width=360)
        self.r_value = pn.widgets.TextInput(label=_("Value"), width=150)
        self.r_set = pn.widgets.Button(label=_("Set"), color="primary", width=90)
        self.r_clear = pn.widgets.Button(label=_("Undo this system's edits"), width=200)
        self.r_edits = pn.pane.Markdown("")
        self.r_download = pn.widgets.FileDownload(
            callback=self._rules_download,
            filename="rules.toml",
            embed=False,
            label=_("Download the rules as a file"),
            width=260,
        )
        self.r_upload = pn.widgets.FileInput(accept=".toml", multiple=False)
        self.r_field.param.watch(self._on_rule_field, "value")
        self.r_set.on_click(self._on_rule_set)
        self.r_clear.on_click(self._on_rule_clear)
        self.r_upload.param.watch(self._on_rules_upload, "value")
        self._rules_widgets()

    def _rules_pane(self) -> pn.Card:
        return pn.Card(
            pn.pane.Markdown(_("Traits of A (the archetype's own unless changed)")),
            self.r_traits["a"],
            pn.pane.Markdown(_("Traits of B (the archetype's own unless changed)")),
            self.r_traits["b"],
            pn.Row(self.r_field, self.r_value, self.r_set),
            self.r_edits,
            pn.Row(self.r_clear, self.r_download),
            pn.Row(pn.pane.Markdown(_("Load a rules file:")), self.r_upload),
            title=_("Edit the rules and the fighters' traits"),
            collapsed=False,
        )

    def _rules_labels(self) -> None:
        self.r_field.label, self.r_value.label = _("Rule field"), _("Value")
        self.r_set.label, self.r_clear.label = _("Set"), _("Undo this system's edits")
        self.r_download.label = _("Download the rules as a file")
        for side, inputs in getattr(self, "r_trait_inputs", {}).items():
            for t, w in inputs.items():  # a trait's words follow the language too
                w.label = _trait_label(t, side)

    def _rules_widgets(self) -> None:
        """The trait fields of both sides and the rule fields of the duel's system, with
        the values in force."""
        d = self.state.duel
        from analysis.rules import traits

        self._updating = True
        try:
            if self._r_trait_system != d.system:
                for side in "ab":
                    inputs = {
                        t: pn.widgets.TextInput(
                            label=_trait_label(t, side),
                            width=110,
                            description=page_words.tip(t, f"--trait-{side} {t}=…"),
                        )
                        for t in traits(d.system)
                    }
                    for w in inputs.values():
                        w.param.watch(self._on_duel, "value")
                    self.r_trait_inputs[side] = inputs
                    self.r_traits[side].objects = list(inputs.values())
                self._r_trait_system = d.system
            for side in "ab":
                own = model.own_traits(d.system, getattr(d, side))
                given = getattr(d, f"traits_{side}")
                for t, w in self.r_trait_inputs[side].items():
                    w.value = given.get(t, str(own.get(t, "")))
                    w.placeholder = str(own.get(t, ""))
            fields = model.rule_fields(d.system)
            values = {f["knob"]: f["value"] for f in fields}
            self._r_values = values
            edited = [k for k in self.state.edits.get(d.system, {}) if k in values]
            keep = (
                self.r_field.value
                if self.r_field.value in values
                else next(iter(edited or values), None)
            )  # an edited field first (an address)
            # each field in the glossary's words, the knob id in its menu's value
            self.r_field.options = page_words.knob_options(d.system, values)
            self.r_field.value = keep
            shown = (d.system, keep, values.get(keep, "") if keep is not None else "")
            # a refresh that leaves the field and its value in force as they were (an
            # echo of the address, a pin) keeps what the designer may be typing in Value
            if shown != getattr(self, "_r_shown", None):
                self.r_value.value = shown[2]
                self._r_shown = shown
        finally:
            self._updating = False
        edits = self.state.edits
        self.r_edits.object = (
            (
                "**"
                + _("Edits of the rules")
                + ":** "
                + ", ".join(f"`{s}:{k}={v}`" for s, k, v in model.edit_list(edits))
            )
            if edits
            else _("No edit of the rules on this page.")
        )
        self.r_download.filename = f"{d.system}_rules.toml"

    def _read_traits(self, old: model.DuelState, new: model.DuelState) -> None:
        """Each side's trait changes from its fields, as ``duel --trait-a`` validates
        them (none when the side's archetype or the system changed: its own traits
        stand)."""
        for side in "ab":
            if (old.system, getattr(old, side)) != (
                new.system,
                getattr(new, side),
            ) or self._r_trait_system != new.system:
                setattr(new, f"traits_{side}", {})
                continue
            given = {t: w.value for t, w in self.r_trait_inputs[side].items()}
            setattr(
                new,
                f"traits_{side}",
                model.check_traits(new.system, getattr(new, side), given, f"trait-{side}"),
            )

    # ------------------------------------------------------------------ callbacks

    def _on_rule_field(self, event) -> None:
        if self._updating:
            return
        self.r_value.value = getattr(self, "_r_values", {}).get(event.new, "")
        self._r_shown = (self.state.duel.system, event.new, self.r_value.value)

    def _after_edit(self) -> None:
        """Show the page under its new rules (called in a guard of its own, so the rules
        put in force are the new ones, never merged over the old)."""
        with language(self.state.lang):
            self._rules_widgets()
            self.refresh_duel()
            self._audit_command()

    def _edit(self, change) -> None:
        def go():
            self.state.edits = change()
            self._apply_edits()
            self._say([])

        if self._guard(go):
            self._guard(self._after_edit)
        self._push_url()

    def _on_rule_set(self, _event=None) -> None:
        d = self.state.duel
        self._edit(
            lambda: model.with_edit(
                self._base_rules,
                self.state.edits,
                d.system,
                self.r_field.value,
                str(self.r_value.value),
            )
        )

    def _on_rule_clear(self, _event=None) -> None:
        system = self.state.duel.system
        self._edit(lambda: {s: k for s, k in self.state.edits.items() if s != system})

    def _on_rules_upload(self, event) -> None:
        if not event.new:
            return

        def load():
            system, knobs = model.load_rules_upload(
                self.r_upload.filename or "rules.toml", bytes(event.new), self._base_rules
            )
            return {**{s: k for s, k in self.state.edits.items() if s != system}, system: knobs}

        refused: list[str] = []

        def go():
            try:
                self.state.edits = load()
            except InputError as exc:  # every problem of the file, one line each
                refused.extend(str(exc).splitlines())
                return
            self._apply_edits()
            self._say([])

        if self._guard(go) and not refused:
            self._guard(self._after_edit)
        if refused:
            self._say(refused)
        self._push_url()

    def _rules_download(self):
        """The duel system's rules in force on the page as a minimal rules file."""
        from analysis.rules import in_force

        system = self.state.duel.system
        rules = {rs.system: rs for rs in self.rules}
        text = model.rules_file(rules or in_force(), system)
        return io.BytesIO(text.encode("utf-8"))
