"""The end of a game: its audit, whose exponentiations the shell runs, the verdict the audit reaches, and the games
won in the room, which count only those found fair. Pure: the work is the shell's to run.

Version 5 checked every shuffle step, key and claim on receipt, so its audit only records the verdict; versions 3 and
4 check every step again from the published deck seeds and replay the game with every face known.
"""

from __future__ import annotations

from . import deck as mental
from .game import RuleViolation
from .intents import Work
from .state import Play, TableState
from .values import Fault, Problem, Verdict
from .words import verdict_words


class Audit(TableState):
    """A table's audit of its games, and the fair games each seat won."""


    # -- the audit (its exponentiations are the shell's to run) ----------------------------------------

    def audit_work(self) -> Work | None:
        """Once every seat's deck seed of a game is in: the job whose ``finish`` records its verdict. Any game, not
        only the current one: a seat that catches up on a ledger where the next game began audits the last one."""
        p = next((p for p in self.plays if p.audited and p.verdict is None and p.state is not None), None)
        if p is None or p.group is None:
            return None
        if p.proven:  # every step, key and move was checked on receipt: nothing is left to do
            p.revealed = {pos: card for deck in p.decks for pos, card in deck.faces.items()}
            return Work(mental.Job([], [], p.group, lambda _: self._conclude(p, [])), p.number)
        seeds = {seat: mental.Secrets(p.group, bytes.fromhex(audit.seed))
                 for seat, audit in p.audits.items() if seat != self.me}
        jobs = [deck.audit_job(seeds) for deck in p.decks]
        found = [problem for job in jobs if isinstance(job, list) for problem in job]
        if found:
            return Work(mental.Job([], [], p.group, lambda _: self._conclude(p, found)), p.number)
        deals = [job for job in jobs if isinstance(job, mental.Job)]

        def finish(results: list[int]) -> None:
            problems: list[Problem] = []
            cards: dict[int, int] = {}
            start = 0
            for job in deals:
                end = start + len(job.bases)
                deal_problems, deal_cards = job.finish(results[start:end])
                problems += deal_problems
                cards |= deal_cards
                start = end
            p.revealed = cards
            self._conclude(p, problems or self._replay(p, cards))

        bases = [b for job in deals for b in job.bases]
        exponents = [e for job in deals for e in job.exponents]
        return Work(mental.Job(bases, exponents, p.group, finish), p.number)

    def _replay(self, p: Play, cards: dict[int, int]) -> list[Problem]:
        """Play the game again with every face known: each move legal, each claim true."""
        assert p.game is not None and p.state is not None and p.starter is not None
        state = p.game.new(p.state.setup)
        state.faces.update({pos: state.setup.faces[card] for pos, card in cards.items()})
        state.seen.update({pos: set(range(p.seats)) for pos in cards})
        choices = iter(p.choices)
        moves = iter(p.moves)
        while True:
            if state.choice() is not None:
                values = next(choices, None)
                if values is None:
                    return []
                state.choose(values)
                continue
            item = next(moves, None)
            if item is None:
                return []
            seat, move = item
            try:
                state.check(seat, move)
                state.push(seat, move)
            except RuleViolation as error:
                return [Problem(seat, Fault.ILLEGAL_MOVE, str(error))]

    def _conclude(self, p: Play, found: list[Problem]) -> None:
        p.verdict = found
        verdict = self.verdict(p)
        assert verdict is not None
        summary = verdict_words(verdict, self.seat_names(), self.me)
        self._say(summary if p is self.play else f"game {p.number}: {summary}")

    # -- what the audits found -------------------------------------------------------------------------

    def wins(self, through: int | None = None) -> tuple[int, ...]:
        """Games won per seat, counting only those audited fair, up to game ``through`` (all by default): a fold of
        the ledger, so every seat agrees after any restart."""
        wins = [0] * (self.play.seats or self.wish.seats)
        for play in self.plays[:through]:
            if play.outcome is not None and play.verdict == []:
                for seat in play.outcome.winners:
                    wins[seat] += 1
        return tuple(wins)

    @staticmethod
    def verdict(p: Play) -> Verdict | None:
        """The audit of game ``p``, once it is done."""
        if p.verdict is None or p.game is None:
            return None
        return Verdict(tuple(p.verdict), len(p.decks), p.deck.size if p.deck else 0, len(p.moves) + len(p.choices),
                       p.game.tally)
