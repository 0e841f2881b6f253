"""The new-game screen: rule set, players, a bot per seat, match length, seed, house rules.

The form is checked as it changes: the rules are built with ``Rules.preset`` and
``dataclasses.replace`` (so the engine's :class:`~tienlen.RulesError` explains anything
that cannot be played), and Start is enabled only for a valid set-up. The rules code field
shows the code of the rules the form describes; typing or pasting a code sets the form from
it, keeping knobs the form has no control for.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Checkbox, Footer, Input, Label, Select, Static

from tienlen import RULESETS, Rules, RulesError
from tienlen.describe import SUMMARIES, describe_rules
from tienlen.match import parse_seed
from tienlen.players.levels import LEVELS

from ...controller import MatchController, MatchSetup
from ...seats import SEAT_NAMES, bot_choices
from ..texts import OPTIONS, apply_options

__all__ = ["LENGTHS", "SetupScreen"]

#: Match lengths offered: label and (games, target).
LENGTHS: tuple[tuple[str, tuple[int | None, int | None]], ...] = (
    ("1 game", (1, None)),
    ("3 games", (3, None)),
    ("5 games", (5, None)),
    ("10 games", (10, None)),
    ("First to 10 points", (None, 10)),
    ("First to 20 points", (None, 20)),
    ("Until I stop", (None, None)),
)


class SetupScreen(Screen[None]):
    """Choose a match: Start posts :class:`SetupScreen.StartMatch` with its
    :class:`MatchSetup`, Resume :class:`SetupScreen.ResumeMatch` with the saved match."""

    class StartMatch(Message):
        """Start a new match with ``settings``."""

        def __init__(self, settings: MatchSetup) -> None:
            super().__init__()
            self.settings = settings

    class ResumeMatch(Message):
        """Go on with the saved match ``controller`` holds."""

        def __init__(self, controller: MatchController) -> None:
            super().__init__()
            self.controller = controller

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+g", "start", "Start"),
        Binding("ctrl+o", "resume", "Resume saved"),
        Binding("ctrl+q", "app.quit", "Quit"),
    ]

    def __init__(
        self, settings: MatchSetup | None = None, *, save_path: str | Path = "tienlen-match.json"
    ) -> None:
        super().__init__()
        self.initial = settings or MatchSetup()
        self.save_path = Path(save_path)
        self.lengths = list(LENGTHS)
        wanted = (self.initial.games, self.initial.target)
        if wanted not in [value for _, value in LENGTHS]:
            games, target = wanted
            label = f"{games} games" if games else ""
            if target:
                label += (" or " if label else "First to ") + f"{target} points"
            self.lengths.append((label, wanted))
        self._syncing = False
        # The rules the form starts from: the chosen preset's, or those of the last code
        # entered (which may change knobs the form has no control for).
        self._base = self.initial.rules
        self._base_preset = self._base.name if self._base.name in RULESETS else "standard"

    def compose(self) -> ComposeResult:
        s = self.initial
        preset = s.rules.name if s.rules.name in RULESETS else "standard"
        bots = [(f"{b.label['en']}: {b.about['en']}", b.name) for b in bot_choices()]
        bots += [(name, name) for name in dict.fromkeys(s.bots) if name not in LEVELS]
        yield Static(Text("Tiến Lên · new match", "bold"), id="title")
        with VerticalScroll(id="form"):
            with Grid(id="main-grid"):
                yield Label("Rule set")
                yield Select(
                    [(f"{name}: {SUMMARIES[name]}", name) for name in RULESETS],
                    value=preset,
                    allow_blank=False,
                    compact=True,
                    id="rules",
                )
                yield Label("Players")
                with Horizontal(classes="row"):
                    yield Select(
                        [(str(n), n) for n in range(2, 9)],
                        value=s.rules.players,
                        allow_blank=False,
                        compact=True,
                        id="players",
                    )
                    yield Checkbox("Two decks", s.rules.decks == 2, id="decks")
                yield Label("Match")
                yield Select(
                    [(label, i) for i, (label, _) in enumerate(self.lengths)],
                    value=[v for _, v in self.lengths].index((s.games, s.target)),
                    allow_blank=False,
                    compact=True,
                    id="length",
                )
                yield Label("Rules code")
                yield Input(
                    value=s.rules.code(),
                    placeholder="a rules code, e.g. standard.cong",
                    id="code",
                    compact=True,
                )
                yield Label("Seed")
                yield Input(
                    value="" if s.seed is None else str(s.seed),
                    placeholder="blank: a new random deal",
                    id="seed",
                    compact=True,
                )
            yield Static(Text("Opponents", "bold"), classes="section")
            with Grid(id="bot-grid"):
                for seat in range(1, 8):
                    name = (
                        s.bots[seat - 1]
                        if seat - 1 < len(s.bots)
                        else s.bots[-1]
                        if s.bots
                        else "easy"
                    )
                    yield Label(SEAT_NAMES[seat], id=f"bot-label-{seat}")
                    yield Select(
                        bots, value=name, allow_blank=False, id=f"bot-{seat}", compact=True
                    )
            yield Static(Text("House rules", "bold"), classes="section")
            for option in OPTIONS:
                yield Checkbox(option.label, option.is_on(s.rules), id=f"opt-{option.key}")
            yield Checkbox("Bots play at once (no pause between moves)", s.delay == 0, id="fast")
            yield Static(Text("These rules", "bold"), classes="section")
            yield Static(id="explain")
        yield Static(id="check")
        with Horizontal(id="setup-buttons", classes="buttons"):
            yield Button("Start", id="start", variant="primary", compact=True)
            yield Button(
                "Resume saved", id="resume", disabled=not self.save_path.exists(), compact=True
            )
            yield Button("Quit", id="quit", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self._sync_preset(apply_defaults=False)
        self._check()
        self.query_one("#start", Button).focus()

    # --- reading the form -------------------------------------------------------------
    def _value(self, selector: str) -> object:
        return self.query_one(selector, Select).value

    def build(self) -> MatchSetup:
        """The :class:`MatchSetup` the form describes; raises ``ValueError`` saying what is
        wrong."""
        name = str(self._value("#rules"))
        players = int(str(self._value("#players")))
        decks = 2 if self.query_one("#decks", Checkbox).value else 1
        preset = Rules.preset(name)
        rules = self._base if self._base_preset == name else preset
        keys = {o.key for o in OPTIONS if self.query_one(f"#opt-{o.key}", Checkbox).value}
        for option in OPTIONS:
            if option.key not in keys and option.is_on(rules) and not option.is_on(preset):
                rules = _switch_off(rules, option.apply, preset)
        rules = dataclasses.replace(rules, players=players, decks=decks)
        rules = apply_options(rules, keys)
        games, target = self.lengths[int(str(self._value("#length")))][1]
        seed_text = self.query_one("#seed", Input).value.strip()
        seed: int | str | None = None
        if seed_text:
            seed = parse_seed(seed_text)
        bots = tuple(str(self._value(f"#bot-{seat}")) for seat in range(1, players))
        fast = self.query_one("#fast", Checkbox).value
        return MatchSetup(
            rules=rules,
            bots=bots,
            games=games,
            target=target,
            seed=seed,
            delay=0.0 if fast else (self.initial.delay or 0.6),
        )

    def _check(self) -> MatchSetup | None:
        check = self.query_one("#check", Static)
        start = self.query_one("#start", Button)
        players = int(str(self._value("#players")))
        for seat in range(1, 8):
            shown = seat < players
            self.query_one(f"#bot-label-{seat}").display = shown
            self.query_one(f"#bot-{seat}").display = shown
        try:
            settings = self.build()
        except ValueError as e:
            check.update(Text(f"✗ {e}", "bold #ff5f5f"))
            start.disabled = True
            return None
        r = settings.rules
        code = self.query_one("#code", Input)
        if not code.has_focus and code.value != r.code():
            self._syncing = True
            code.value = r.code()
            self._syncing = False
        self.query_one("#explain", Static).update(Text(describe_rules(r, width=76)))
        check.update(
            Text(
                f"✓ {r.name}, {r.players} players, {r.cards_per_hand} cards each"
                + (", two decks" if r.decks == 2 else ""),
                "#87d75f",
            )
        )
        start.disabled = False
        return settings

    def _sync_preset(self, *, apply_defaults: bool) -> None:
        """Show the chosen preset's own options as fixed (checked and disabled)."""
        rules = Rules.preset(str(self._value("#rules")))
        self._syncing = True
        if apply_defaults:
            self.query_one("#players", Select).value = rules.players
            self.query_one("#decks", Checkbox).value = rules.decks == 2
        for option in OPTIONS:
            box = self.query_one(f"#opt-{option.key}", Checkbox)
            built_in = option.is_on(rules)
            if built_in:
                box.value = True
            elif apply_defaults:
                box.value = False
            box.disabled = built_in
        self._syncing = False

    # --- events -------------------------------------------------------------------------
    @on(Select.Changed, "#rules")
    def _rules_changed(self) -> None:
        name = str(self._value("#rules"))
        if name != self._base_preset:  # a preset chosen, not one a code set
            self._base, self._base_preset = Rules.preset(name), name
            self._sync_preset(apply_defaults=True)
        self._check()

    @on(Select.Changed, "#players")
    def _players_changed(self) -> None:
        players = int(str(self._value("#players")))
        decks = self.query_one("#decks", Checkbox)
        try:
            if self._base.for_players(players).decks == 2:
                decks.value = True
        except RulesError:
            pass  # the check line says what is wrong
        self._check()

    @on(Input.Changed, "#code")
    def _code_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._syncing:
            return
        try:
            rules = Rules.from_code(event.value)
        except ValueError as e:
            self.query_one("#check", Static).update(Text(f"✗ {e}", "bold #ff5f5f"))
            self.query_one("#start", Button).disabled = True
            return
        self._base = rules
        self._base_preset = rules.name if rules.name in RULESETS else "standard"
        self._syncing = True
        self.query_one("#rules", Select).value = self._base_preset
        self.query_one("#players", Select).value = rules.players
        self.query_one("#decks", Checkbox).value = rules.decks == 2
        self._syncing = False
        self._sync_preset(apply_defaults=False)
        for option in OPTIONS:
            self.query_one(f"#opt-{option.key}", Checkbox).value = option.is_on(rules)
        self._check()

    @on(Select.Changed)
    @on(Checkbox.Changed)
    @on(Input.Changed, "#seed")
    def _changed(self) -> None:
        if not self._syncing:
            self._check()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        match event.button.id:
            case "start":
                self.action_start()
            case "resume":
                self.action_resume()
            case _:
                self.app.exit()

    def action_start(self) -> None:
        settings = self._check()
        if settings is not None:
            self.post_message(self.StartMatch(settings))

    def action_resume(self) -> None:
        check = self.query_one("#check", Static)
        if not self.save_path.exists():
            check.update(
                Text(
                    f"✗ no saved match in {self.save_path}: ctrl+s saves a match, and so does "
                    "quitting in the middle of one",
                    "bold #ff5f5f",
                )
            )
            return
        try:
            controller = MatchController.load(self.save_path, delay=self.initial.delay)
        except (OSError, ValueError) as e:
            check.update(Text(f"✗ {e}", "bold #ff5f5f"))
            return
        self.post_message(self.ResumeMatch(controller))


def _switch_off(rules: Rules, switch_on: Callable[[Rules], Rules], preset: Rules) -> Rules:
    """``rules`` with the knobs an option changes put back to the preset's values."""
    knobs = {
        f.name
        for f in dataclasses.fields(Rules)
        if f.init and getattr(switch_on(preset), f.name) != getattr(preset, f.name)
    }
    return dataclasses.replace(rules, **{k: getattr(preset, k) for k in knobs})
