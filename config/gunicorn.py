"""gunicorn settings for the web service (``gunicorn -c config/gunicorn.py config.wsgi:application``).

The timeout fits the longest request the pages make: importing the STC-3 Chinese training set
(3,700 dialogues x 19 annotators, ``bench/import_stc3.py``) in the upload form takes up to a
minute on a modest machine, and gunicorn's default of 30 s killed it. Until uploads become
background jobs, a request may take ``GUNICORN_TIMEOUT`` seconds (default 300); the proxy in
front waits as long. Forwarded headers are trusted from ``TRUSTED_PROXIES`` only (the same list
``config.proxy.TrustedProxyHeaders`` reads).
"""

import os

import gunicorn.http.wsgi

# gunicorn names itself in every answer's Server header and no setting changes it; the proxy drops the header
# (deploy/Caddyfile), and a gunicorn reached directly names no software either. The workers, forked from the
# process that reads this file, inherit the value.
gunicorn.http.wsgi.SERVER = "dialeval"

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("GUNICORN_WORKERS", "4"))
# threads per worker process; above 1 gunicorn runs the gthread worker (a process serves a request while another of
# its requests waits on the database). bench/peers_workload.py --database postgres with 20 annotators measured 4 x 5
# threads against 4 sync workers on 2 cores: saves' p95 a little lower, the next item's a little higher (issue #46).
threads = int(os.environ.get("GUNICORN_THREADS", "1"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "300"))
graceful_timeout = 30
preload_app = True
forwarded_allow_ips = os.environ.get("TRUSTED_PROXIES", "127.0.0.1,::1")
accesslog = "-"
