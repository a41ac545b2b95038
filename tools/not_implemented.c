/* not_implemented — the honest answer of a tool whose analysis is not built yet: an isError result that
 * says so and that nothing was analyzed, never placeholder data. */
#include "tool_common.h"

int nl_tool_not_implemented(nl_tool_result *res, const char *tool, const char *what_is_missing)
{
    return nl_tool_result_error(res,
        "%s is not implemented in this build of neuronlens: %s. Nothing was read or analyzed, so there are "
        "no numbers to report. Until it lands, `neuron-profile view --output-format summary-text` on the "
        "Trainium host gives a headline summary.", tool, what_is_missing);
}
