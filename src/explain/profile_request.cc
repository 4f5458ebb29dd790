#include "explain/profile_request.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>

namespace kopt {

ProfileRequest RequestFor(const std::string& target, const std::string& kernel_regex) {
  ProfileRequest request;
  request.target = target;
  request.kernel_regex = kernel_regex;
  return request;
}

Status CheckCollectionOptionsApply(const ProfileRequest& request) {
  const CollectionSettings defaults;
  std::vector<std::string> given;
  if (request.collection.section_set != defaults.section_set) given.push_back("--set");
  if (request.collection.launches_per_configuration != defaults.launches_per_configuration)
    given.push_back("--launches-per-kernel");
  if (!request.work_directory.empty()) given.push_back("--work-dir");
  if (given.empty()) return Status::Ok();
  std::string names =
      given.size() == 1
          ? given[0]
          : fmt::format("{} and {}", fmt::join(given.begin(), given.end() - 1, ", "), given.back());
  return InvalidInput(fmt::format(
      "{} {} for live collection (a .cu TARGET or a program after --); {} is a profile that is read, not "
      "collected: leave {} out",
      names, given.size() == 1 ? "is" : "are", request.target, given.size() == 1 ? "it" : "them"));
}

bool IsLiveRequest(const ProfileRequest& request) {
  ProfileSources sources;
  sources.target = request.target;
  sources.program_argv = request.program_argv;
  return IsLiveCollection(sources);
}

ProfileSources ResolveProfileSources(const ProfileRequest& request) {
  ProfileSources sources;
  sources.target = request.target;
  sources.program_argv = request.program_argv;
  sources.kernel_regex = request.kernel_regex;
  sources.launch_skip = request.launch_skip;
  sources.launch_count = request.launch_count;
  sources.sass_path = request.sass_path;
  sources.ptxas_path = request.ptxas_path;
  sources.source_page_path = request.source_page_path;
  sources.work_directory = request.work_directory;
  ApplyCollectionSettings(request.collection, sources);
  if (!IsLiveCollection(sources)) sources.timeline_path = request.timeline_path;
  return sources;
}

ProfileRequest RequestForTarget(const ProfileRequest& request, const std::string& target) {
  ProfileRequest single = request;
  single.target = target;
  single.program_argv.clear();
  single.sass_path.clear();
  single.ptxas_path.clear();
  single.source_page_path.clear();
  single.timeline_path.clear();
  if (!request.work_directory.empty())
    single.work_directory =
        (std::filesystem::path(request.work_directory) / std::filesystem::path(target).stem()).string();
  return single;
}

Result<Profile> LoadSelectedProfile(const ProfileRequest& request, CommandRunner& runner,
                                    std::vector<std::string>& notes, const CollectionObservers& observers) {
  ProfileSources sources = ResolveProfileSources(request);
  sources.progress = observers.progress;
  sources.phases = observers.phases;
  KOPT_ASSIGN_OR_RETURN(Profile profile, LoadProfile(sources, runner, notes));
  if (IsLiveCollection(sources)) sources.launch_skip = sources.launch_count = 0;  // ncu applied them
  KOPT_RETURN_IF_ERROR(SelectLaunches(sources, profile));
  return profile;
}

}  // namespace kopt
