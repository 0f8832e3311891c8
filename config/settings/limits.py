"""Limits: upload and archive sizes, login lockouts, the API's throttles and study sign-ups.

``config.limits`` (not a settings module) is what enforces the first two at the edge: the upload middleware
and the lockout answer.
"""

from datetime import timedelta

from config.env import env_int, env_str

# Uploads and archives (see config.limits and scoring.files.ArchiveLimits).
UPLOAD_MAX_BYTES = env_int("UPLOAD_MAX_MB", 200) * 1024 * 1024  # a larger request is refused (413) unread
ARCHIVE_MAX_BYTES = env_int("ARCHIVE_MAX_MB", 4096) * 1024 * 1024  # total uncompressed size of a zip's members
ARCHIVE_MAX_RATIO = float(env_str("ARCHIVE_MAX_RATIO", "100"))  # compression ratio of a member or zip over 1 MiB
ARCHIVE_MAX_MEMBERS = env_int("ARCHIVE_MAX_MEMBERS", 200_000)  # the real collections x 100 (scoring.files)

# Failed logins (page and API token), tracked per account and per client address by django-axes: after
# LOGIN_FAILURE_LIMIT failures in a row either is locked for LOGIN_LOCKOUT_MINUTES, even with the right
# password. Admins lift a lockout by deleting its "access attempt" in the admin (or manage.py axes_reset).
AXES_VERBOSE = False  # no banner on every process start (commands keep their stderr clean)
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 30))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # either one reaching the limit locks
AXES_RESET_ON_SUCCESS = True
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False  # the lockout lasts the configured time, not longer
AXES_LOCKOUT_CALLABLE = "config.limits.lockout_response"
AXES_CLIENT_IP_CALLABLE = "config.client_address.client_address"  # behind the proxy, the client's own address

# The API's throttles (REST_FRAMEWORK's DEFAULT_THROTTLE_RATES; api.throttles): requests per user or address.
API_THROTTLE_RATES = {
    "writes": env_str("API_WRITE_RATE", "300/minute"),  # per user, unsafe methods only
    "login": env_str("API_LOGIN_RATE", "20/minute"),  # per client address, the token endpoint
}
# Crowdsourced studies: new participants a client address may create (DRF's rate syntax, per s/m/h/d).
STUDY_PARTICIPANTS_RATE = env_str("STUDY_PARTICIPANTS_RATE", "20/hour")
# Account mail and guesses, counted in the cache (config.throttling.CountedRate; DRF's rate syntax): password
# reset requests and invitations per client address and per email address, return codes typed per client address
# and per study (a code has 50 random bits; these keep guessing them out of reach).
PASSWORD_RESET_RATES = {
    "client": env_str("PASSWORD_RESET_CLIENT_RATE", "10/hour"),
    "address": env_str("PASSWORD_RESET_ADDRESS_RATE", "3/hour"),
}
INVITATION_RATES = {
    "client": env_str("INVITATION_CLIENT_RATE", "100/hour"),
    "address": env_str("INVITATION_ADDRESS_RATE", "5/day"),
}
RETURN_CODE_RATES = {
    "client": env_str("RETURN_CODE_CLIENT_RATE", "20/hour"),
    "study": env_str("RETURN_CODE_STUDY_RATE", "200/hour"),
}
# Seconds after a participant's time limit during which their page's saves are still taken (a save in flight
# or retried at the deadline); their unfinished items are released only after it.
STUDY_SAVE_GRACE_SECONDS = env_int("STUDY_SAVE_GRACE_SECONDS", 120)
