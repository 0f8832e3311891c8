"""Throwaway local services for tests and benchmarks: a PostgreSQL cluster and redis-server on loopback.

Installs Debian's postgresql, redis-server, chromium, nodejs and caddy (the deployment test's TLS proxy) when their
binaries are missing (and fonts-noto-cjk when no font covers Japanese and Chinese).
"""

from __future__ import annotations

import glob
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def log(message: str) -> None:
    print(f"[services] {message}", flush=True)


def pg_bindir() -> Path | None:
    for pattern in ("/usr/lib/postgresql/*/bin",):
        for candidate in sorted(glob.glob(pattern), reverse=True):
            if Path(candidate, "pg_ctl").exists():
                return Path(candidate)
    found = shutil.which("pg_ctl")
    return Path(found).resolve().parent if found else None


def has_cjk_fonts() -> bool:
    """Whether fontconfig knows a font for Japanese and one for Simplified Chinese."""
    if shutil.which("fc-list") is None:
        return False
    found = [
        subprocess.run(["fc-list", f":lang={lang}"], capture_output=True, text=True).stdout for lang in ("ja", "zh-cn")
    ]
    return all(out.strip() for out in found)


def ensure_node() -> None:
    """Debian's nodejs for the page's script modules' unit tests (``node --test``), when ``node`` is missing."""
    if shutil.which("node") is None:
        apt_install(["nodejs"])


OIDC_DIR = Path(__file__).resolve().parent.parent / "tests" / "oidc"


def ensure_oidc_provider() -> None:
    """The single sign-on tests' OpenID Connect provider (npm's ``oidc-provider``, pinned in
    tests/oidc/package-lock.json): ``npm ci`` into tests/oidc/node_modules when the lock file changed, with
    its cache in tests/oidc/.npm-cache (a second install is offline). When the npm registry cannot be
    reached the SSO tests skip, saying so."""
    stamp = OIDC_DIR / "node_modules" / ".lock-installed"
    lock = (OIDC_DIR / "package-lock.json").read_text()
    if stamp.exists() and stamp.read_text() == lock:
        return
    cache = OIDC_DIR / ".npm-cache"
    done = subprocess.run(
        ["npm", "ci", "--prefer-offline", "--no-audit", "--no-fund", "--cache", str(cache)],
        cwd=OIDC_DIR, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    if done.returncode != 0:
        log(f"npm ci in tests/oidc failed (the SSO tests will skip): {done.stderr.strip()[-500:]}")
        return
    stamp.write_text(lock)
    log("installed the test OIDC provider (tests/oidc)")


def ensure_system_packages() -> None:
    wanted = []
    if shutil.which("node") is None:
        wanted.append("nodejs")
    if pg_bindir() is None:
        wanted.append("postgresql")
    if shutil.which("redis-server") is None:
        wanted.append("redis-server")
    if not Path("/usr/bin/chromium").exists():
        wanted.append("chromium")
    if shutil.which("caddy") is None:
        wanted.append("caddy")
    if not has_cjk_fonts():  # the Japanese and Chinese pages' screenshots need CJK glyphs (Noto Sans CJK JP/SC)
        wanted.append("fonts-noto-cjk")
    apt_install(wanted)


def apt_install(wanted: list[str]) -> None:
    if not wanted:
        return
    if os.geteuid() != 0:
        sys.exit(f"missing system packages {wanted}: install them with apt-get (needs root)")
    log(f"installing Debian packages: {' '.join(wanted)}")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *wanted],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )


def free_port() -> int:
    return free_ports(1)[0]


_HANDED_OUT: set[int] = set()  # ports this process has chosen already (a server may not have bound one yet)


def _ephemeral_ports() -> range:
    """The kernel's range for the local ports of outgoing connections (Linux's default when unknown)."""
    try:
        low, high = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    except (OSError, ValueError):
        low, high = 32768, 60999
    return range(low, high + 1)


def xdist_slot() -> tuple[int, int]:
    """This test process's index and the number of test processes under pytest-xdist (``gw0``, ``gw1``...:
    scripts/run_tests.py runs the PostgreSQL lane in one process per core); ``(0, 1)`` otherwise."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw"):
        return 0, 1
    return int(worker[2:]), max(int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")), int(worker[2:]) + 1)


def free_ports(n: int) -> list[int]:
    """``n`` different loopback ports that are free now, for servers started a moment later.

    Chosen at random below the kernel's ephemeral range and never twice in one process. A port the kernel picks
    (binding port 0) comes from the range it also gives every outgoing connection its local port from, so an
    HTTP, PostgreSQL or Redis client of the tests could take it before the server binds it ("address already
    in use": Caddy's port did so in a whole-suite run), and the kernel may hand the same port out twice.
    Under pytest-xdist each test process draws from its own share of the range (the ports whose remainder
    modulo the number of processes is its index), so that two processes of one run never choose the same port.
    """
    ephemeral = _ephemeral_ports()
    low, high = (20000, ephemeral.start) if ephemeral.start > 21000 else (ephemeral.stop, 65536)
    index, count = xdist_slot()
    pool = range(low + (index - low) % count, high, count)
    chosen: list[int] = []
    for _ in range(10_000):
        if len(chosen) == n:
            return chosen
        port = random.choice(pool)
        if port in _HANDED_OUT or port in chosen:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        chosen.append(port)
        _HANDED_OUT.add(port)
    raise RuntimeError(f"no {n} free loopback ports in {pool}")


def as_db_user(cmd: list[str], user: str | None) -> list[str]:
    return ["runuser", "-u", user, "--", *cmd] if user else cmd


def db_user() -> str | None:
    """initdb refuses to run as root: run the cluster as an unprivileged account."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "dialeval-pg"):
        if subprocess.run(["id", name], capture_output=True).returncode == 0:
            return name
    subprocess.run(["useradd", "--system", "--no-create-home", "dialeval-pg"], check=True)
    return "dialeval-pg"


class Services:
    """A PostgreSQL cluster and a redis-server of their own; ``redis_appendonly`` keeps Redis's queue across a
    restart (as the compose file's Redis does)."""

    def __init__(self, *, redis_appendonly: bool = False) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="dialeval-test-"))
        self.user = db_user()
        self.pg_port, self.redis_port = free_ports(2)
        self.redis: subprocess.Popen | None = None
        self.redis_appendonly = redis_appendonly
        self.pg_started = False

    def _pg_ctl(self, *args: str) -> None:
        subprocess.run(
            as_db_user([str(pg_bindir() / "pg_ctl"), "-D", str(self.tmp / "pg"), *args], self.user),
            check=True,
            stdout=subprocess.DEVNULL,
        )

    def restart_postgres(self) -> None:
        """Stop the cluster (fast: sessions are ended) and start it again, waiting until it accepts connections."""
        self._pg_ctl("-m", "fast", "-w", "restart")

    def start_redis(self) -> None:
        self.redis = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.redis_port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "yes" if self.redis_appendonly else "no",
                "--dir",
                str(self.tmp),
            ],
            stdout=subprocess.DEVNULL,
        )
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.redis_port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)

    def stop_redis(self) -> None:
        if self.redis:
            self.redis.terminate()
            self.redis.wait(timeout=10)
            self.redis = None

    def start(self) -> dict[str, str]:
        bindir = pg_bindir()
        data = self.tmp / "pg"
        data.mkdir()
        if self.user:
            shutil.chown(self.tmp, self.user)
            shutil.chown(data, self.user)
        subprocess.run(
            as_db_user(
                [str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C"],
                self.user,
            ),
            check=True,
            stdout=subprocess.DEVNULL,
        )
        opts = (
            f"-h 127.0.0.1 -p {self.pg_port} -k {self.tmp} -c fsync=off -c synchronous_commit=off "
            f"-c work_mem=64MB -c shared_buffers=256MB -c jit=off "
            f"-c full_page_writes=off -c max_connections=200"
        )
        subprocess.run(
            as_db_user(
                [str(bindir / "pg_ctl"), "-D", str(data), "-o", opts, "-l", str(self.tmp / "pg.log"), "-w", "start"],
                self.user,
            ),
            check=True,
            stdout=subprocess.DEVNULL,
        )
        self.pg_started = True
        subprocess.run(
            [str(bindir / "createdb"), "-h", "127.0.0.1", "-p", str(self.pg_port), "-U", "postgres", "dialeval"],
            check=True,
        )
        log(f"PostgreSQL on 127.0.0.1:{self.pg_port}")
        self.start_redis()
        log(f"Redis on 127.0.0.1:{self.redis_port}")
        return {
            "DATABASE_URL": f"postgres://postgres@127.0.0.1:{self.pg_port}/dialeval",
            "CELERY_BROKER_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            "CELERY_RESULT_BACKEND": f"redis://127.0.0.1:{self.redis_port}/1",
            "DIALEVAL_PG_BINDIR": str(bindir),
        }

    def stop(self) -> None:
        self.stop_redis()
        if self.pg_started:
            subprocess.run(
                as_db_user(
                    [str(pg_bindir() / "pg_ctl"), "-D", str(self.tmp / "pg"), "-m", "immediate", "stop"], self.user
                ),
                stdout=subprocess.DEVNULL,
            )
        shutil.rmtree(self.tmp, ignore_errors=True)


ALL_QUEUES = "interactive,heavy,exports"  # settings.TASK_QUEUES: one test or bench worker serves them all


def celery_worker_command(*, queues: str = ALL_QUEUES, name: str = "worker", loglevel: str = "WARNING") -> list[str]:
    """A single-process Celery worker (the suite's and the benchmarks') on ``queues``."""
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "--pool=solo",
        f"--loglevel={loglevel}",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        "-Q",
        queues,
        "-n",
        f"{name}@%h",
    ]
