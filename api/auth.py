"""Bearer API keys and their scopes.

Each web process keeps the keys it has seen, each under the API-keys stamp it was read under
(shared/redis_client.py). A request makes one Redis round trip at its start: the stamps
(API keys, and the catalog's, which the view passes on to the routing index) and the rate check.
Its key comes from the copy while the stamp is unchanged, else from the database. Every write
to a key replaces the stamp (api/models.py), so a revocation is refused on the next request in
every process. Without Redis every request reads its key from the database.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import redis
from rest_framework import authentication, exceptions, permissions

from shared.redis_client import API_KEYS_STAMP, CATALOG_STAMP, get_redis, queue_stamp

from . import throttling
from .models import ApiKey
from .selectors import key_by_hash
from .services import hash_key, touch_last_used


class ApiKeyUser:
    """What request.user is for an API client: enough for DRF, nothing of Django's users."""

    is_authenticated = True
    is_active = True
    is_staff = False

    def __init__(self, found: KeyLookup) -> None:
        assert found.api_key is not None
        self.api_key: ApiKey = found.api_key
        self.rate_answer = found.rate_answer  # asked with the key's stamp; the throttle asks itself when None
        self.catalog_stamp = found.catalog_stamp  # for the routing index (None: read the catalog version)

    def __str__(self) -> str:
        return self.api_key.name


@dataclass(frozen=True)
class KeyLookup:
    """A request's key as stored now, its rate check when it went in the same round trip, and
    the catalog stamp read in that round trip (None without Redis)."""

    api_key: ApiKey | None
    rate_answer: throttling.RateAnswer | None = None
    catalog_stamp: bytes | None = None


# key hash -> (the stamp it was read under, the key as read then)
_copies: dict[str, tuple[bytes, ApiKey]] = {}


def api_key_of(request: Any) -> ApiKey:
    """The authenticated request's API key (the views' permission has checked there is one)."""
    api_key = request.auth
    assert isinstance(api_key, ApiKey)
    return api_key


def catalog_stamp_of(request: Any) -> bytes | None:
    """The catalog stamp the request's authentication read, for the route service."""
    return getattr(request.user, "catalog_stamp", None)


def current_key(key_hash: str, failures: throttling.FailedAuthWindow | None = None) -> KeyLookup:
    """The key with this hash as stored now, read with the stamps in one Redis round trip.

    With `failures` (the client address's failed authentications), an address past its limit
    gets TooManyFailedAuthentications unless this process knows the key already (a copy, current
    or not): no database read.
    """
    if throttling.redis_resting():
        return KeyLookup(key_by_hash(key_hash))
    copy = _copies.get(key_hash)
    # Only a known key's rate is known before the stamp says whether the copy still holds.
    check = throttling.RateCheck.now(copy[1]) if copy else None
    pipe = get_redis().pipeline(transaction=False)
    queue_stamp(pipe, API_KEYS_STAMP)
    queue_stamp(pipe, CATALOG_STAMP)
    if failures:
        failures.queue_read(pipe)
    if check:
        check.queue(pipe)
    try:
        stamp, catalog_stamp, *replies = pipe.execute()
    except redis.RedisError as exc:
        throttling.note_redis_failure(exc)
        _copies.clear()  # a key may change while Redis is away: read them all afresh once it is back
        return KeyLookup(key_by_hash(key_hash))
    failure_reply = replies.pop(0) if failures else None
    rate_reply = replies
    if copy and check and copy[0] == stamp and not copy[1].revoked:
        return KeyLookup(copy[1], check.answer(rate_reply[0]), catalog_stamp)
    # A key this process holds a copy of is no guess, even once the stamp moved on (a write to any key,
    # or 10 s): one read checks it, so guesses from a shared address do not lock out its clients.
    known_good = copy is not None and not copy[1].revoked
    if failures and not known_good and (wait := failures.wait_seconds(failure_reply or [])) is not None:
        raise failures.refuse(wait)
    if copy and check and copy[0] == stamp:  # a revoked key this process knows: refused without a read
        return KeyLookup(copy[1], check.answer(rate_reply[0]), catalog_stamp)
    api_key = key_by_hash(key_hash)
    if api_key is None:
        _copies.pop(key_hash, None)
        return KeyLookup(None, catalog_stamp=catalog_stamp)
    _copies[key_hash] = (stamp, api_key)
    # The request was counted against the old copy's rate: keep that answer if the rate is the same.
    same_rate = check is not None and check.rate == throttling.rate_for(api_key)
    return KeyLookup(api_key, check.answer(rate_reply[0]) if check and same_rate else None, catalog_stamp)


class BearerKeyAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).decode("latin-1")
        if not header:
            return None
        scheme, _, raw_key = header.partition(" ")
        if scheme.lower() != self.keyword.lower() or not raw_key.strip():  # a scheme is case-insensitive (RFC 9110)
            raise exceptions.AuthenticationFailed("Use 'Authorization: Bearer <api key>'.")
        failures = throttling.FailedAuthWindow.now(throttling.client_address(request))
        found = current_key(hash_key(raw_key.strip()), failures)
        if found.api_key is None or found.api_key.revoked:
            failures.count()
            raise exceptions.AuthenticationFailed("The API key is unknown or revoked.")
        touch_last_used(found.api_key)
        return ApiKeyUser(found), found.api_key

    def authenticate_header(self, request) -> str:
        return f'{self.keyword} realm="api"'


class HasScope(permissions.BasePermission):
    """Set `required_scope` on the view: "route" or "catalog"."""

    message = "This API key lacks the scope this endpoint needs."

    def has_permission(self, request, view) -> bool:
        api_key = getattr(request, "auth", None)
        if not isinstance(api_key, ApiKey):
            return False
        required = getattr(view, "required_scope", None)
        if required and not api_key.has_scope(required):
            self.message = f"This API key lacks the {required!r} scope."
            return False
        return True
