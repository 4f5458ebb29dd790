#include "measure/reference_cache.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "core/file_io.h"
#include "core/sha256.h"
#include "core/subprocess.h"

namespace kopt {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kSchema = "kopt.reference_cache/1";

// The interpreter the bridge would start: KOPT_PYTHON or python3, resolved
// on PATH, with its size and modification time ("" parts when not found).
std::string PythonIdentity() {
  const char* configured = std::getenv("KOPT_PYTHON");
  std::string program = configured && *configured ? configured : "python3";
  std::string path = FindProgramOnPath(program);
  struct stat info {};
  if (path.empty() || stat(path.c_str(), &info) != 0) return program + " (not found)";
  std::error_code error;
  fs::path resolved = fs::canonical(path, error);
  return (error ? path : resolved.string()) + " " + std::to_string(info.st_size) + " " +
         std::to_string(info.st_mtime);
}

std::string EntryDirectory(const std::string& workspace_directory, const std::string& key) {
  return workspace_directory + "/reference-cache/" + key;
}

}  // namespace

Result<std::string> ReferenceCacheKey(const std::string& task_directory, const std::string& settings_hash,
                                      const std::string& gpu, std::optional<uint64_t> seed) {
  std::error_code error;
  std::vector<std::string> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(task_directory, error)) {
    if (entry.is_regular_file(error)) files.push_back(entry.path().filename().string());
  }
  if (error) return Unavailable("reference cache: cannot list " + task_directory + ": " + error.message());
  std::sort(files.begin(), files.end());
  Sha256 hash;
  hash.Update(std::string(kSchema) + "\nsettings " + settings_hash + "\ngpu " + gpu + "\npython " +
              PythonIdentity() + "\nseed " + (seed ? std::to_string(*seed) : "random") + "\n");
  for (const std::string& file : files) {
    Result<std::string> contents = ReadWholeFile(task_directory + "/" + file);
    if (!contents.ok()) return Unavailable("reference cache: " + contents.status().message());
    hash.Update("file " + file + " " + Sha256Hex(*contents) + "\n");
  }
  return hash.FinishHex();
}

std::optional<CachedReference> LoadCachedReference(const std::string& workspace_directory,
                                                   const std::string& key) {
  std::string directory = EntryDirectory(workspace_directory, key);
  Result<std::string> text = ReadWholeFile(directory + "/entry.json", size_t{1} << 20);
  if (!text.ok()) return std::nullopt;
  json entry = json::parse(*text, nullptr, false);
  if (!entry.is_object() || entry.value("schema", "") != kSchema || entry.value("key", "") != key ||
      !entry.contains("run_id") || !entry["run_id"].is_number_integer() || !entry.contains("seeds") ||
      !entry["seeds"].is_array()) {
    return std::nullopt;
  }
  CachedReference cached;
  cached.run_id = entry["run_id"].get<int64_t>();
  for (const json& seed : entry["seeds"]) {
    if (!seed.is_number_unsigned()) return std::nullopt;
    cached.seeds.push_back(seed.get<uint64_t>());
  }
  Result<std::string> frames = ReadWholeFile(directory + "/frames.bin", size_t{64} << 30);
  if (!frames.ok()) return std::nullopt;
  Result<OutputFrames> parsed = OutputFrames::Parse(std::move(frames).value());
  if (!parsed.ok() || parsed->size() == 0) return std::nullopt;
  cached.frames = std::move(parsed).value();
  return cached;
}

Status StoreCachedReference(const std::string& workspace_directory, const std::string& key, int64_t run_id,
                            const std::vector<uint64_t>& seeds, const OutputFrames& frames) {
  std::string root = workspace_directory + "/reference-cache";
  std::error_code error;
  fs::create_directories(root, error);
  if (error) return Unavailable("reference cache: cannot create " + root + ": " + error.message());
  fs::permissions(root, fs::perms::owner_all, fs::perm_options::replace, error);
  std::string temporary = root + "/.tmp-" + key + "-" + std::to_string(std::random_device{}());
  fs::create_directory(temporary, error);
  if (error) return Unavailable("reference cache: cannot create " + temporary + ": " + error.message());
  std::string encoded;
  for (const auto& [frame_key, payload] : frames.frames()) {
    encoded += EncodeFrameHead(frame_key, payload.size());
    encoded.append(reinterpret_cast<const char*>(payload.data()), payload.size());
  }
  json entry = {{"schema", kSchema}, {"key", key}, {"run_id", run_id}, {"seeds", seeds}};
  Status written = WriteFileAtomically(temporary + "/frames.bin", encoded);
  if (written.ok()) written = WriteFileAtomically(temporary + "/entry.json", entry.dump(1) + "\n");
  std::string final_directory = EntryDirectory(workspace_directory, key);
  if (written.ok()) {
    fs::remove_all(final_directory, error);
    fs::rename(temporary, final_directory, error);
    if (error)
      written =
          Unavailable("reference cache: cannot rename into " + final_directory + ": " + error.message());
  }
  if (!written.ok()) fs::remove_all(temporary, error);
  return written;
}

}  // namespace kopt
