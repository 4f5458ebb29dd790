// The layering check (ctest `layering`): every include of a project header
// under src/ stays within what src/layers.txt allows its layer, the layers
// there are in data-flow order, and src/CMakeLists.txt's KOPT_LAYERS and the
// "Layer order" line of docs/architecture.md list the same layers in the
// same order.
//
// An include is a project header's when it names a file under src/: quoted
// ("x/y.h", resolved beside the including file first, so "../x/y.h" counts)
// or angle-bracketed (<x/y.h>); a quoted "x/..." naming a layer counts even
// when the file does not exist (a generated header). Every file under a
// layer's folder is read: .h, .cc, .cu, .cuh, .hpp, .inc, .ipp.
//
// With BUILD_DIR, the library's unity batches (the Unity/*.cxx files that
// BUILD_DIR/build.ninja compiles for kopt_lib) must each hold the sources of
// one layer: a batch mixing layers lets a file use a header that only
// another layer's file included, which no #include shows.
//
// Usage: layering_check SOURCE_ROOT [BUILD_DIR]   (the repository root)
// Prints one line per violation; exit 0 when there is none, 1 otherwise, 2
// when a file cannot be read.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Layer {
  std::string name;
  bool program = false;  // an executable's folder, not part of libkopt
  std::set<std::string> allowed;
  size_t position = 0;
};

bool ReadText(const fs::path& path, std::string& text) {
  std::ifstream stream(path);
  if (!stream) return false;
  std::stringstream buffer;
  buffer << stream.rdbuf();
  text = buffer.str();
  return true;
}

std::vector<std::string> Words(const std::string& text) {
  std::istringstream stream(text);
  std::vector<std::string> words;
  std::string word;
  while (stream >> word) words.push_back(word);
  return words;
}

// The layer folder (the first component under src/) of a path, or "" when it is not under src/.
std::string LayerOf(const fs::path& path, const fs::path& source_root) {
  fs::path relative = path.lexically_normal().lexically_relative(source_root.lexically_normal());
  if (relative.empty() || relative.begin() == relative.end() || *relative.begin() == "..") return "";
  return relative.begin()->string();
}

// The file an include names under src/: quoted includes beside the including
// file first, then under src/; angle includes under src/ only. Empty when the
// include names no file there.
fs::path ResolveInclude(const fs::path& including_file, const fs::path& source_root, bool quoted,
                        const std::string& spelled) {
  std::error_code error;
  if (quoted) {
    fs::path beside = (including_file.parent_path() / spelled).lexically_normal();
    if (fs::is_regular_file(beside, error)) return beside;
  }
  fs::path under_root = (source_root / spelled).lexically_normal();
  if (fs::is_regular_file(under_root, error)) return under_root;
  return {};
}

bool IsCheckedExtension(const std::string& extension) {
  for (const char* checked : {".h", ".cc", ".cu", ".cuh", ".hpp", ".inc", ".ipp"}) {
    if (extension == checked) return true;
  }
  return false;
}

// The library's unity batches that BUILD_DIR/build.ninja compiles: each must hold one layer's sources.
void CheckUnityBatches(const fs::path& build, const fs::path& source_root,
                       std::vector<std::string>& problems) {
  std::string ninja;
  if (!ReadText(build / "build.ninja", ninja)) {
    problems.push_back((build / "build.ninja").string() +
                       ": cannot read it (the unity batches are unchecked)");
    return;
  }
  std::set<std::string> batches;
  std::regex batch(R"re((\S*kopt_lib\.dir/Unity/unity_\w+\.cxx))re");
  for (auto it = std::sregex_iterator(ninja.begin(), ninja.end(), batch); it != std::sregex_iterator(); ++it)
    batches.insert((*it)[1].str());
  std::regex include_line(R"re(^\s*#\s*include\s*"([^"]+)")re");
  for (const std::string& name : batches) {
    fs::path path = fs::path(name).is_absolute() ? fs::path(name) : build / name;
    std::string text;
    if (!ReadText(path, text)) {
      problems.push_back(path.string() + ": cannot read this unity batch");
      continue;
    }
    std::set<std::string> layers;
    std::istringstream lines(text);
    std::string line;
    std::smatch match;
    while (std::getline(lines, line)) {
      if (!std::regex_search(line, match, include_line)) continue;
      std::string layer = LayerOf(match[1].str(), source_root);
      if (!layer.empty()) layers.insert(layer);
    }
    if (layers.size() > 1) {
      std::string listed;
      for (const std::string& layer : layers) listed += (listed.empty() ? "" : ", ") + layer;
      problems.push_back(
          path.string() + ": a unity batch mixing the layers " + listed +
          ": a use without an #include would compile (UNITY_GROUP per folder, src/CMakeLists.txt)");
    }
  }
}

bool IsTestFile(const std::string& file_name) {
  auto ends_with = [&](const std::string& suffix) {
    return file_name.size() >= suffix.size() &&
           file_name.compare(file_name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with("_test.cc") || ends_with("_test_util.h");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::cerr << "usage: layering_check SOURCE_ROOT [BUILD_DIR]\n";
    return 2;
  }
  const fs::path root = fs::absolute(argv[1]).lexically_normal();
  std::vector<std::string> problems;

  // ---- src/layers.txt ----
  std::string layers_text;
  if (!ReadText(root / "src/layers.txt", layers_text)) {
    std::cerr << "cannot read " << (root / "src/layers.txt") << "\n";
    return 2;
  }
  std::vector<Layer> layers;
  std::map<std::string, size_t> index;
  std::istringstream lines(layers_text);
  std::string line;
  size_t line_number = 0;
  while (std::getline(lines, line)) {
    ++line_number;
    if (line.find('#') != std::string::npos) line = line.substr(0, line.find('#'));
    std::vector<std::string> words = Words(line);
    if (words.empty()) continue;
    std::string where = "src/layers.txt:" + std::to_string(line_number) + ": ";
    if ((words[0] != "layer" && words[0] != "program") || words.size() < 2 || words[1].back() != ':') {
      problems.push_back(where + "expected 'layer NAME: LAYERS...' or 'program NAME: LAYERS...'");
      continue;
    }
    Layer layer;
    layer.name = words[1].substr(0, words[1].size() - 1);
    layer.program = words[0] == "program";
    layer.position = layers.size();
    for (size_t i = 2; i < words.size(); ++i) {
      if (!index.count(words[i])) {
        problems.push_back(
            where + layer.name + " may include '" + words[i] +
            "', which is not a layer listed before it (data flows from earlier to later layers)");
      } else if (layers[index[words[i]]].program) {
        problems.push_back(where + layer.name + " may include the program folder '" + words[i] + "'");
      }
      layer.allowed.insert(words[i]);
    }
    if (index.count(layer.name)) problems.push_back(where + "layer '" + layer.name + "' listed twice");
    index[layer.name] = layers.size();
    layers.push_back(layer);
  }
  std::vector<std::string> library_order;
  for (const Layer& layer : layers) {
    if (!layer.program) library_order.push_back(layer.name);
  }
  auto joined = [](const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names) text += (text.empty() ? "" : " ") + name;
    return text;
  };

  // ---- src/CMakeLists.txt's KOPT_LAYERS ----
  std::string cmake_text;
  if (!ReadText(root / "src/CMakeLists.txt", cmake_text)) {
    std::cerr << "cannot read src/CMakeLists.txt\n";
    return 2;
  }
  std::smatch match;
  if (!std::regex_search(cmake_text, match, std::regex(R"(set\(KOPT_LAYERS([^)]*)\))"))) {
    problems.push_back("src/CMakeLists.txt: no set(KOPT_LAYERS ...)");
  } else if (Words(match[1].str()) != library_order) {
    problems.push_back("src/CMakeLists.txt: KOPT_LAYERS is '" + joined(Words(match[1].str())) +
                       "' but src/layers.txt's layers are '" + joined(library_order) + "'");
  }

  // ---- docs/architecture.md ----
  std::string docs_text;
  if (!ReadText(root / "docs/architecture.md", docs_text)) {
    std::cerr << "cannot read docs/architecture.md\n";
    return 2;
  }
  if (!std::regex_search(docs_text, match, std::regex(R"(\nLayer order[^\n]*:([^\n]*))"))) {
    problems.push_back("docs/architecture.md: no 'Layer order ...: `core` `hw` ...' line");
  } else {
    std::vector<std::string> documented;
    std::string listed = match[1].str();
    std::regex name(R"(`([a-z_]+)/?`)");
    for (auto it = std::sregex_iterator(listed.begin(), listed.end(), name); it != std::sregex_iterator();
         ++it) {
      documented.push_back((*it)[1].str());
    }
    if (documented != library_order) {
      problems.push_back("docs/architecture.md: the layer order is '" + joined(documented) +
                         "' but src/layers.txt's layers are '" + joined(library_order) + "'");
    }
  }
  for (const std::string& layer : library_order) {
    std::error_code error;
    if (!fs::is_directory(root / "src" / layer, error)) continue;  // declared ahead of its folder
    if (docs_text.find("| `" + layer + "/` |") == std::string::npos) {
      problems.push_back("docs/architecture.md: no table row for layer " + layer + "/");
    }
  }

  // ---- the includes ----
  std::regex include_line(R"re(^\s*#\s*include\s*([<"])([^">]+)[">])re");
  const fs::path source_root = root / "src";
  for (const auto& folder : fs::directory_iterator(root / "src")) {
    if (!folder.is_directory()) continue;
    std::string layer_name = folder.path().filename().string();
    if (!index.count(layer_name)) {
      problems.push_back("src/" + layer_name + "/: a folder that src/layers.txt does not list");
      continue;
    }
    const Layer& layer = layers[index[layer_name]];
    std::vector<fs::path> files;
    for (const auto& file : fs::recursive_directory_iterator(folder.path())) {
      std::string extension = file.path().extension().string();
      if (file.is_regular_file() && IsCheckedExtension(extension)) {
        files.push_back(file.path());
      }
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      std::string text;
      if (!ReadText(file, text)) {
        std::cerr << "cannot read " << file << "\n";
        return 2;
      }
      bool test_file = IsTestFile(file.filename().string());
      std::istringstream source(text);
      size_t number = 0;
      while (std::getline(source, line)) {
        ++number;
        if (!std::regex_search(line, match, include_line)) continue;
        bool quoted = match[1].str() == "\"";
        std::string spelled = match[2].str();
        fs::path resolved = ResolveInclude(file, source_root, quoted, spelled);
        std::string target = resolved.empty() ? "" : LayerOf(resolved, source_root);
        if (resolved.empty() && quoted && spelled.find('/') != std::string::npos)
          target = spelled.substr(0, spelled.find('/'));  // "x/..." not (yet) on disk: a generated header
        if (target == layer_name || !index.count(target)) continue;  // own layer; not a src/ folder
        if (layer.allowed.count(target)) continue;
        const Layer& included = layers[index[target]];
        if (test_file && included.position < layer.position && IsTestFile(fs::path(spelled).filename())) {
          continue;  // a test utility of a lower layer
        }
        std::string relative = fs::relative(file, root).string();
        std::string shown = resolved.empty() ? spelled : resolved.lexically_relative(source_root).string();
        problems.push_back(relative + ":" + std::to_string(number) + ": includes " + match[1].str() +
                           spelled + (quoted ? "\"" : ">") + " (" + shown + "), but " + layer_name +
                           "/ may include only: " +
                           (layer.allowed.empty() ? std::string("(nothing)")
                                                  : joined({layer.allowed.begin(), layer.allowed.end()})) +
                           " (src/layers.txt)");
      }
    }
  }

  if (argc == 3) CheckUnityBatches(fs::absolute(argv[2]), source_root, problems);

  for (const std::string& problem : problems) std::cout << problem << "\n";
  if (!problems.empty()) {
    std::cout << "layering: " << problems.size() << " problem(s)\n";
    return 1;
  }
  std::cout << "layering: ok (" << layers.size() << " layers)\n";
  return 0;
}
