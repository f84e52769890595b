// Splitting a command written as one string (a --launch-agent, a line of an --app file) into
// its words, as a shell would for plain quoting.
#pragma once

#include <string>
#include <vector>

namespace gpurun::launcher {

// The words of `text`: split at blanks (space, tab, line breaks); '...' and "..." keep blanks
// within a word (no escapes; the other quote mark is an ordinary character there). Throws
// UsageError "<where>: unbalanced quote (')" for a quote left open.
std::vector<std::string> split_words(const std::string& text, const std::string& where);

}  // namespace gpurun::launcher
