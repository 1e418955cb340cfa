"""Bearer API keys and their scopes."""
from __future__ import annotations

from rest_framework import authentication, exceptions, permissions

from .models import ApiKey
from .selectors import key_by_hash
from .services import hash_key, touch_last_used


class ApiKeyUser:
    """What request.user is for an API client: enough for DRF, nothing of Django's users."""

    is_authenticated = True
    is_active = True
    is_staff = False

    def __init__(self, api_key: ApiKey) -> None:
        self.api_key = api_key

    def __str__(self) -> str:
        return self.api_key.name


class BearerKeyAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).decode("latin-1")
        if not header:
            return None
        scheme, _, raw_key = header.partition(" ")
        if scheme != self.keyword or not raw_key.strip():
            raise exceptions.AuthenticationFailed("Use 'Authorization: Bearer <api key>'.")
        api_key = key_by_hash(hash_key(raw_key.strip()))
        if api_key is None or api_key.revoked:
            raise exceptions.AuthenticationFailed("The API key is unknown or revoked.")
        touch_last_used(api_key)
        return ApiKeyUser(api_key), api_key

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
