from gitstore.cli import run

run()
