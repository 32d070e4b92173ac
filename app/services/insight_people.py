"""People for insights, from the identity directory: one name per person across platforms.

Lives in services because it joins two features (connectors' identity directory, insights).
"""

from __future__ import annotations

from collections.abc import Iterable

from connectors.identity import IdentityStore


class DirectoryPeople:
    """A snapshot of the directory: `canonical(name)` is the contact's display name, else the name."""

    def __init__(self, store: IdentityStore) -> None:
        self._by_name: dict[str, str] = {}
        for contact in store.contacts():
            self._by_name[contact.display_name.casefold()] = contact.display_name
            for ident in contact.identities:
                self._by_name[ident.person.casefold().lstrip("@")] = contact.display_name

    def canonical(self, name: str) -> str:
        return self._by_name.get(name.casefold().lstrip("@"), name)

    def all_names(self, names: Iterable[str]) -> tuple[str, ...]:
        """`names` plus every other name the same people go by (for "is this me?")."""
        wanted = {self.canonical(n).casefold() for n in names}
        found = [n for n in names] + [
            k for k, display in self._by_name.items() if display.casefold() in wanted
        ]
        return tuple(dict.fromkeys([*found, *(self.canonical(n) for n in names)]))
