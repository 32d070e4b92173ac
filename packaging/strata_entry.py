"""PyInstaller entry script: the same `strata` command line as the installed console script."""

import multiprocessing

if __name__ == "__main__":
    # `strata serve` starts its search worker processes with multiprocessing (spawn); in the bundle
    # the child is this executable, which must then run the worker, not the command line.
    multiprocessing.freeze_support()
    from app.cli.main import run

    run()
