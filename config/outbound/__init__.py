"""Everything the platform sends out over HTTP goes through here: webhook deliveries, endpoint judges, the single
sign-on provider's endpoints, and any later integration.

- ``client.outbound_send``: one request, to a checked address, redirects never followed, a total deadline and a
  size cap on the answer (the module's docstring says how each is kept);
- ``addresses``: URLs parsed, addresses classified, the operator's named hosts, ``url_under`` (a URL below an
  operator's prefix, on parsed parts);
- ``policy``: the operator's settings read (``OUTBOUND_ALLOWED_HOSTS``, ``OUTBOUND_MAX_RESPONSE_BYTES``).
"""
