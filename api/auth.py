"""Bearer API keys and their scopes.

Each web process keeps the keys it has seen, each under the API-keys stamp it was read under
(shared/redis_client.py). A request makes one Redis round trip at its start: the stamps
(API keys, and the catalog's for the routing index later in the request) and the rate check.
Its key comes from the copy while the stamp is unchanged, else from the database. Every write
to a key replaces the stamp (api/models.py), so a revocation is refused on the next request in
every process. Without Redis every request reads its key from the database.
"""
from __future__ import annotations

import redis
from rest_framework import authentication, exceptions, permissions

from shared.redis_client import API_KEYS_STAMP, CATALOG_STAMP, get_redis, queue_stamp, remember_stamps

from . import throttling
from .models import ApiKey
from .selectors import key_by_hash
from .services import hash_key, touch_last_used


class ApiKeyUser:
    """What request.user is for an API client: enough for DRF, nothing of Django's users."""

    is_authenticated = True
    is_active = True
    is_staff = False

    def __init__(self, api_key: ApiKey, rate_answer: throttling.RateAnswer | None = None) -> None:
        self.api_key = api_key
        self.rate_answer = rate_answer  # asked with the key's stamp; the throttle asks itself when None

    def __str__(self) -> str:
        return self.api_key.name


# key hash -> (the stamp it was read under, the key as read then)
_copies: dict[str, tuple[bytes, ApiKey]] = {}


def current_key(key_hash: str) -> tuple[ApiKey | None, throttling.RateAnswer | None]:
    """The key with this hash as stored now, and its rate check when it could go in the same round trip."""
    if throttling.redis_resting():
        return key_by_hash(key_hash), None
    copy = _copies.get(key_hash)
    # Only a known key's rate is known before the stamp says whether the copy still holds.
    check = throttling.RateCheck.now(copy[1]) if copy else None
    pipe = get_redis().pipeline(transaction=False)
    queue_stamp(pipe, API_KEYS_STAMP)
    queue_stamp(pipe, CATALOG_STAMP)
    if check:
        check.queue(pipe)
    try:
        stamp, catalog_stamp, *rate_reply = pipe.execute()
    except redis.RedisError as exc:
        throttling.note_redis_failure(exc)
        _copies.clear()  # a key may change while Redis is away: read them all afresh once it is back
        return key_by_hash(key_hash), None
    remember_stamps({API_KEYS_STAMP: stamp, CATALOG_STAMP: catalog_stamp})
    if copy and copy[0] == stamp:
        return copy[1], check.answer(rate_reply[0])
    api_key = key_by_hash(key_hash)
    if api_key is None:
        _copies.pop(key_hash, None)
        return None, None
    _copies[key_hash] = (stamp, api_key)
    # The request was counted against the old copy's rate: keep that answer if the rate is the same.
    same_rate = check is not None and check.rate == throttling.rate_for(api_key)
    return api_key, check.answer(rate_reply[0]) if same_rate else None


class BearerKeyAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).decode("latin-1")
        if not header:
            return None
        scheme, _, raw_key = header.partition(" ")
        if scheme != self.keyword or not raw_key.strip():
            raise exceptions.AuthenticationFailed("Use 'Authorization: Bearer <api key>'.")
        api_key, rate_answer = current_key(hash_key(raw_key.strip()))
        if api_key is None or api_key.revoked:
            raise exceptions.AuthenticationFailed("The API key is unknown or revoked.")
        touch_last_used(api_key)
        return ApiKeyUser(api_key, rate_answer), api_key

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
