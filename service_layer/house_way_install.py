"""Installing a casino's House Way file on a table (issue 32): certified first, then recorded.

The file must certify (``house_way_certificates``: every hand decided by one of its clauses, none
fouls, R-HW-5) before the table may play it. The service runs the certification itself rather
than accept a certificate brought along (docs/decisions.md): a certificate is a claim about a
file, and the service can check the claim in a minute, so it never trusts one. The certificate's
SHA-256 goes into the ``house_way_installed`` event beside the file's text and digest; since a
certificate is the same bytes for the same file, anyone can run ``paigow house-way certify`` on
the text the log holds and get that digest again. A file certified once is not certified again
by the same process (by the file's digest).
"""

from __future__ import annotations

import threading
from datetime import datetime

from service_layer.house_way_certificates import Certificate, WaySource, certify
from table_core.commands import InstallHouseWay
from table_core.errors import DomainError
from table_core.events import Actor
from table_core.table.house_way_install import installed_way, text_digest

#: Certificates by file digest, this process's (a few files; a certificate is a small dict).
_CERTIFIED: dict[str, Certificate] = {}
_KEEP = 64
_LOCK = threading.Lock()


class NotCertified(DomainError):
    """A House Way file that does not certify: the table keeps its way (R-HW-5)."""

    def __init__(self, certificate: Certificate) -> None:
        figures = certificate.figures
        counts = "; ".join(f"{kind} {count:,} hands" for kind, count in figures["failures"].items())
        first = next(iter(figures["failure_examples"].values()), [""])[0]
        super().__init__(
            f"House Way {figures['house_way']} does not certify ({counts}), e.g. {first}; "
            "run paigow house-way certify FILE for every failure",
            rule="R-HW-5",
        )
        self.certificate = certificate


def certificate_for(text: str, jobs: int = 1) -> Certificate:
    """The certificate of a House Way file's text (parsed first: a bad file is refused by line)."""
    digest = text_digest(text)
    with _LOCK:
        known = _CERTIFIED.get(digest)
    if known is not None:
        return known
    way = installed_way(text)  # HouseWayFileError: one line per problem
    done = certify(WaySource(way.name, text), jobs)
    with _LOCK:
        if len(_CERTIFIED) >= _KEEP:
            _CERTIFIED.pop(next(iter(_CERTIFIED)))
        _CERTIFIED[digest] = done
    return done


def install_command(
    text: str, reason: str, actor: Actor, at: datetime, jobs: int = 1
) -> InstallHouseWay:
    """The command that installs ``text`` on a table, once it certifies (else ``NotCertified``)."""
    if not reason.strip():
        raise DomainError("a rules change states its reason")
    done = certificate_for(text, jobs)
    if not done.certified:
        raise NotCertified(done)
    return InstallHouseWay(
        text=text,
        digest=text_digest(text),
        certificate_digest=done.digest,
        reason=reason,
        actor=actor,
        at=at,
    )
