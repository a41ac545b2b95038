/* cli — the neuronlens subcommands besides `serve`: `call` (one tool, result on stdout) and `demo`
 * (walks the real server over pipes the way an assistant would). Both run on the calling thread. */
#ifndef NL_CLI_H
#define NL_CLI_H

/* Exit codes: 0 success, 1 tool error, 2 usage error. */
int cli_call(int argc, char **argv);
int cli_demo(int argc, char **argv);

#endif
