"""A bounded cache of validated chains keyed by normalised certificate URL."""

from __future__ import annotations

import datetime as _dt
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from .chain import ValidatedChain
from .errors import VerificationError

__all__ = ["CacheEntry", "ChainCache"]

Loader = Callable[[], ValidatedChain]


@dataclass(frozen=True, eq=False)
class CacheEntry:
    """A chain, when it was downloaded (its age counts from then), and when a download of it was last tried."""

    chain: ValidatedChain
    loaded_at: _dt.datetime
    tried_at: _dt.datetime | None = None

    @property
    def last_try(self) -> _dt.datetime:
        return self.tried_at or self.loaded_at


class ChainCache:
    """Least-recently-used, at most ``max_entries`` URLs, each reloaded after ``max_age``. At most one download per
    URL runs at a time (other callers wait for it and use its result). Failures are not cached. Validity is not
    decided here: callers check it on every hit (:meth:`get_valid`)."""

    def __init__(self, max_entries: int, max_age: _dt.timedelta, clock: Callable[[], _dt.datetime]) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self._max_entries = max_entries
        self._max_age = max_age
        self._clock = clock
        self._entries: OrderedDict[str, CacheEntry] = OrderedDict()
        self._lock = threading.Lock()
        self._key_locks: dict[str, threading.Lock] = {}

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def _current(self, key: str) -> CacheEntry | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            return entry

    def _fresh(self, entry: CacheEntry) -> bool:
        return not self._clock() > entry.loaded_at + self._max_age

    def get(self, key: str, loader: Loader) -> CacheEntry:
        """The cached entry for ``key``, loading it when absent or older than ``max_age``."""
        entry = self._current(key)
        if entry is not None and self._fresh(entry):
            return entry
        return self._load(key, loader, entry)

    def get_valid(self, key: str, loader: Loader) -> CacheEntry:
        """The entry for ``key``, valid now: one that is no longer (or not yet) valid is downloaded once more, since
        the certificate at that URL may have been renewed, and refused when it still is not valid."""
        entry = self.get(key, loader)
        try:
            entry.chain.check_valid_at(self._clock())
            return entry
        except VerificationError:
            again = self.refresh(key, entry, _dt.timedelta(0), loader)
            again.chain.check_valid_at(self._clock())
            return again

    def refresh(self, key: str, stale: CacheEntry | None, min_age: _dt.timedelta, loader: Loader) -> CacheEntry:
        """Load ``key`` again unless another caller already replaced ``stale``, or ``stale`` is younger than
        ``min_age`` (then it is returned as is): used once after a signature mismatch, so that a rotated certificate
        is picked up without letting bad requests trigger a download each."""
        current = self._current(key)
        if current is not None and current is not stale:
            return current
        if stale is not None and self._clock() < stale.last_try + min_age:
            return stale
        try:
            return self._load(key, loader, stale)
        except Exception:
            if stale is not None:
                # Keep what we had, but count the attempt: the next refresh waits min_age again. Its age still
                # counts from its download, so a chain taken off its URL is not kept alive by failed refreshes.
                with self._lock:
                    self._entries.setdefault(key, CacheEntry(stale.chain, stale.loaded_at, self._clock()))
            raise

    def invalidate(self, key: str) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def _load(self, key: str, loader: Loader, previous: CacheEntry | None) -> CacheEntry:
        with self._lock:
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        with key_lock:
            current = self._current(key)
            if current is not None and current is not previous and self._fresh(current):
                return current  # another caller loaded it while we waited
            try:
                fresh = CacheEntry(loader(), self._clock())
            except Exception:
                if previous is not None:
                    with self._lock:
                        if self._entries.get(key) is previous:
                            del self._entries[key]
                raise
            with self._lock:
                self._entries[key] = fresh
                self._entries.move_to_end(key)
                while len(self._entries) > self._max_entries:
                    self._entries.popitem(last=False)
                if len(self._key_locks) > 4 * self._max_entries:
                    self._key_locks = {k: v for k, v in self._key_locks.items() if k in self._entries or v.locked()}
            return fresh
