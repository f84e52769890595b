#include "launcher/words.h"

#include "launcher/cli.h"

namespace gpurun::launcher {

std::vector<std::string> split_words(const std::string& text, const std::string& where) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : text) {
    if (quote != 0) {
      if (c == quote)
        quote = 0;
      else
        word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote != 0) throw UsageError(where + ": unbalanced quote (" + std::string(1, quote) + ")");
  if (in_word) words.push_back(std::move(word));
  return words;
}

}  // namespace gpurun::launcher
