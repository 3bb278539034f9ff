"""Domain errors: every refusal of the core is one of these, with a message a dealer can act on."""

from __future__ import annotations


class DomainError(Exception):
    """A command or input the rules refuse; ``rule`` names the deciding clause (``R-…``)."""

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule

    def __str__(self) -> str:
        return self.message


class CardError(DomainError):
    """An unknown, duplicate or missing card, or a hand of the wrong size (R-CARD-2)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, rule="R-CARD-2")


class FoulError(DomainError):
    """A split whose front outranks its back (R-SET-1)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, rule="R-SET-1")


class ConfigurationError(DomainError):
    """A rules profile or setting that cannot be played (for example an unknown House Way)."""
