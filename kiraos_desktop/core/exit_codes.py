"""Exit codes of the command line and of `serve` (DESIGN §7): 0 success, 2 bad usage or input, 1 any other failure."""
EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2
