"""``Cache-Control: no-store`` on every answer under ``/api/``: an API answer holds one account's data (tokens,
judgements, members), which no browser or proxy cache should keep or hand to the next person on the machine."""

from __future__ import annotations

from django.utils.cache import patch_cache_control

from config.handlers import API_PREFIX


class ApiNoStore:
    """The middleware (in both chains: sessions' and tokens', ``config.handlers``)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.path_info.startswith(API_PREFIX):
            patch_cache_control(response, no_store=True)
        return response
