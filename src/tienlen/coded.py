"""Coded text: English as the ``str`` itself, with a stable code and parameters.

A value of a :class:`Coded` subclass reads as plain English wherever a string goes (an
error message, a description) and carries what a client needs to say it again in another
language: ``code``, a key of the subclass's catalogue, and ``params``, the values its
template fills in. :class:`tienlen.reasons.Reason` (why an action is refused) and
:class:`tienlen.describe.Phrase` (the rules in words) are the two catalogues; each says
how it writes a parameter into its templates.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Self

__all__ = ["Coded"]


class Coded(str):
    """English text with a stable ``code`` (a key of :attr:`CATALOGUE`) and ``params``."""

    #: Templates by code, then by language (``en`` always present).
    CATALOGUE: ClassVar[Mapping[str, Mapping[str, str]]] = {}
    code: str
    params: dict[str, Any]

    def __new__(cls, code: str, params: Mapping[str, Any]) -> Self:
        self = super().__new__(cls, cls.fill(cls.CATALOGUE[code]["en"], params, "en"))
        self.code = code
        self.params = dict(params)
        return self

    @classmethod
    def fill(cls, template: str, params: Mapping[str, Any], lang: str) -> str:
        """``template`` with ``params`` written in (in ``lang``): each subclass says how."""
        raise NotImplementedError

    def text(self, lang: str = "en") -> str:
        """The text in ``lang`` (``en`` or ``vi``; English for any other)."""
        template = self.CATALOGUE[self.code]
        return self.fill(template.get(lang, template["en"]), self.params, lang)

    def to_dict(self) -> dict[str, Any]:
        """``{"code", "params"}``, JSON-ready."""
        return {"code": self.code, "params": self.params}
