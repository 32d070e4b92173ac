"""PyInstaller entry script: the same `strata` command line as the installed console script."""

from app.cli.main import run

if __name__ == "__main__":
    run()
