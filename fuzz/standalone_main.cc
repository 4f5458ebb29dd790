// Runs a fuzz target without libFuzzer: every file of the corpus directories
// given on the command line, then `--mutations N` deterministic mutations of
// them (byte flips, truncations, insertions of interesting bytes, splices).
// Exits non-zero only if the target crashes (which ends the process anyway).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::string Mutate(const std::vector<std::string>& corpus, std::mt19937_64& random) {
  std::string input = corpus[random() % corpus.size()];
  static const char* kInteresting[] = {"\"", ",",   "\n", "\r\n", "\0", "\xff", "nan", "1e308",
                                       "-",  "(",   ")",  "/*",   "*/", ";",    ":",   "9999999999999999999",
                                       ".",  "\"\""};
  int steps = 1 + static_cast<int>(random() % 4);
  for (int step = 0; step < steps; ++step) {
    size_t position = input.empty() ? 0 : random() % (input.size() + 1);
    switch (random() % 5) {
      case 0:
        if (!input.empty() && position < input.size()) input[position] = static_cast<char>(random());
        break;
      case 1: input.resize(position); break;
      case 2:
        input.insert(position, kInteresting[random() % (sizeof(kInteresting) / sizeof(*kInteresting))]);
        break;
      case 3:
        if (!input.empty()) input.erase(position, random() % 64);
        break;
      case 4: {
        const std::string& other = corpus[random() % corpus.size()];
        size_t from = other.empty() ? 0 : random() % other.size();
        input.insert(position, other.substr(from, random() % 256));
        break;
      }
    }
  }
  return input;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> corpus;
  long mutations = 1000;
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    if (argument == "--mutations" && i + 1 < argc) {
      mutations = std::atol(argv[++i]);
      continue;
    }
    std::filesystem::path path(argument);
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(path)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
      // The directory's order is the filesystem's: sorted, every machine runs the same mutations.
      std::sort(files.begin(), files.end());
    } else {
      files.push_back(path);
    }
    for (const auto& file : files) {
      std::ifstream stream(file, std::ios::binary);
      std::stringstream buffer;
      buffer << stream.rdbuf();
      corpus.push_back(buffer.str());
    }
  }
  if (corpus.empty()) corpus.push_back("");
  for (const std::string& input : corpus) {
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  }
  std::mt19937_64 random(20261129);
  for (long i = 0; i < mutations; ++i) {
    std::string input = Mutate(corpus, random);
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  }
  std::printf("%zu corpus inputs and %ld mutations ran without a crash\n", corpus.size(), mutations);
  return 0;
}
