"""A casino's own House Way installed on a table (issue 32; decided in ``table/house_way_install``).

A table fact (``round=None``): the file's full text, its SHA-256 and the SHA-256 of the
certificate the service checked it by, so the log alone holds every banker hand's rules: the audit
re-derives each with exactly this text, offline. The ``rules_changed`` that follows it in the same
command makes it the table's House Way (a rules change, with its reason, floor only).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from table_core.event_base import EventBase

Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class HouseWayInstalled(EventBase):
    """The text of a House Way file, installed on the table under the name it declares."""

    type: Literal["house_way_installed"] = "house_way_installed"
    name: str = Field(min_length=1)
    text: str = Field(min_length=1)
    digest: Sha256
    certificate_digest: Sha256
