"""``python -m scoring``: score a run against a gold file without the platform (``scoring.cli``)."""

if __name__ == "__main__":
    import os

    # numpy's OpenBLAS starts a thread per core when imported: CPU time a scorer of small arrays never uses back
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from scoring.cli import main

    raise SystemExit(main())
