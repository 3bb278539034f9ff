"""The signers of a slip (R16, R19): one authenticated key per signing role, each a different
person, on both ways in.

A fill or a credit is signed by the floor, the cage and the dealer; the opening and the closing of
a gaming day by the floor and the dealer (``rights.SIGNERS``). The key that submits the command is
one signer; the others come with it (``--sign KEYFILE`` on the CLI, ``signatures`` over HTTP).
Each key's role says which signer it is. A name given for a signer the old way (``--cage ID``,
``issued_by``) is no longer who signs: it must be the key's actor, or the slip is refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from service_layer.operators.keys import ApiKey
from service_layer.operators.rights import SIGNERS
from table_core.events import Actor


class SignersRefused(Exception):
    """The keys do not sign this slip as its rules say; ``status``: 403 (a key of a role that
    does not sign it) or 422 (a signer missing, twice, one person twice, a name that differs)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def signers(
    operation: str,
    what: str,
    keys: Sequence[ApiKey],
    named: Mapping[str, str | None] | None = None,
    name_of: Mapping[str, str] | None = None,
) -> dict[str, Actor]:
    """Each signing role of ``operation`` and the actor of its key. ``keys``: the submitter's
    first, then the co-signers'; ``what``: the slip as a person names it (``fill F-1``);
    ``named``: the signers' ids given the old way, by role (``None``: not given); ``name_of``:
    how the caller calls each of those (``--cage``, ``issued_by``)."""
    roles = SIGNERS[operation]
    by_role: dict[str, ApiKey] = {}
    for key in keys:
        if key.role not in roles:
            raise SignersRefused(
                403,
                f"a {key.role} key ({key.key_id}) does not sign {what}: "
                f"it is signed by {', '.join(roles)}",
            )
        if key.role in by_role:
            raise SignersRefused(422, f"two {key.role} keys sign {what}: one signs for each role")
        by_role[key.role] = key
    missing = [role for role in roles if role not in by_role]
    if missing:
        raise SignersRefused(
            422,
            f"{what} is signed by {', '.join(roles)}, each with a key of their own: "
            f"the {' and '.join(missing)} key{'s are' if len(missing) > 1 else ' is'} missing",
        )
    people: dict[str, str] = {}
    for role in roles:
        actor = by_role[role].actor_id
        if actor in people:
            raise SignersRefused(
                422,
                f"{actor} signs {what} as {people[actor]} and as {role}: "
                "each signer is another person (R19)",
            )
        people[actor] = role
    for signer, name in (named or {}).items():
        actor = by_role[signer].actor_id
        if name is not None and name != actor:
            flag = (name_of or {}).get(signer, signer)
            raise SignersRefused(
                422,
                f"{flag} {name} is not the {signer} key's actor ({actor}): the key says who signs",
            )
    return {role: Actor(id=by_role[role].actor_id, role=role) for role in roles}
