#include "llm/http_transport.h"

#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <memory>
#include <mutex>

namespace kopt::llm {
namespace {

void InitializeCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

size_t AppendBody(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

std::string Trim(std::string text) {
  auto is_space = [](unsigned char c) { return std::isspace(c) != 0; };
  while (!text.empty() && is_space(text.back())) text.pop_back();
  size_t start = 0;
  while (start < text.size() && is_space(text[start])) ++start;
  return text.substr(start);
}

// Header lines of the last response only (a redirect or 100-continue starts
// a new status line, which clears what came before).
size_t AppendHeader(char* data, size_t size, size_t count, void* user) {
  auto& headers = *static_cast<std::map<std::string, std::string>*>(user);
  std::string line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) {
    headers.clear();
    return size * count;
  }
  size_t colon = line.find(':');
  if (colon == std::string::npos) return size * count;
  std::string name = Trim(line.substr(0, colon));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  headers[name] = Trim(line.substr(colon + 1));
  return size * count;
}

// Read timeout: aborts the transfer when no byte has moved for
// read_timeout_seconds (libcurl calls this at least once a second).
struct ReadWatch {
  double read_timeout_seconds = 0;
  curl_off_t last_bytes = -1;
  std::chrono::steady_clock::time_point last_progress = std::chrono::steady_clock::now();
  bool timed_out = false;
};

int CheckProgress(void* user, curl_off_t download_total, curl_off_t download_now, curl_off_t upload_total,
                  curl_off_t upload_now) {
  (void)download_total;
  (void)upload_total;
  auto& watch = *static_cast<ReadWatch*>(user);
  auto now = std::chrono::steady_clock::now();
  curl_off_t bytes = download_now + upload_now;
  if (bytes != watch.last_bytes) {
    watch.last_bytes = bytes;
    watch.last_progress = now;
    return 0;
  }
  if (std::chrono::duration<double>(now - watch.last_progress).count() > watch.read_timeout_seconds) {
    watch.timed_out = true;
    return 1;  // abort: CURLE_ABORTED_BY_CALLBACK
  }
  return 0;
}

struct CurlHandles {
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  ~CurlHandles() {
    if (headers) curl_slist_free_all(headers);
    if (easy) curl_easy_cleanup(easy);
  }
};

long Milliseconds(double seconds) {
  return std::max(1L, static_cast<long>(seconds * 1000));
}

void SetOptions(CurlHandles& handles, const HttpRequest& request, HttpResponse& response, ReadWatch& watch) {
  CURL* easy = handles.easy;
  for (const auto& [name, value] : request.headers) {
    handles.headers = curl_slist_append(handles.headers, (name + ": " + value).c_str());
  }
  handles.headers = curl_slist_append(handles.headers, "Expect:");
  curl_easy_setopt(easy, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_POST, 1L);
  curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, handles.headers);
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, Milliseconds(request.connect_timeout_seconds));
  // Read timeout: fewer than 1 byte/s for read_timeout seconds aborts the transfer.
  curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME,
                   std::max(1L, static_cast<long>(request.read_timeout_seconds)));
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS,
                   Milliseconds(request.connect_timeout_seconds + 4 * request.read_timeout_seconds));
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, AppendHeader);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &response.headers);
  curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
  watch.read_timeout_seconds = request.read_timeout_seconds;
  curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, CheckProgress);
  curl_easy_setopt(easy, CURLOPT_XFERINFODATA, &watch);
  curl_easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);
}

}  // namespace

CurlHttpTransport::CurlHttpTransport() {
  InitializeCurlOnce();
}

Result<HttpResponse> CurlHttpTransport::Post(const HttpRequest& request) {
  InitializeCurlOnce();
  CurlHandles handles;
  handles.easy = curl_easy_init();
  if (!handles.easy) return Internal(fmt::format("POST {}: curl_easy_init failed", request.url));
  HttpResponse response;
  char error_buffer[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(handles.easy, CURLOPT_ERRORBUFFER, error_buffer);
  ReadWatch watch;
  SetOptions(handles, request, response, watch);
  CURLcode code = curl_easy_perform(handles.easy);
  if (code != CURLE_OK) {
    std::string detail = error_buffer[0] ? error_buffer : curl_easy_strerror(code);
    if (watch.timed_out) {
      detail = fmt::format("read timeout: no data for {} s", request.read_timeout_seconds);
      code = CURLE_OPERATION_TIMEDOUT;
    }
    return Unavailable(fmt::format("POST {}: network error: {} (curl error {}: {})", request.url, detail,
                                   static_cast<int>(code), curl_easy_strerror(code)));
  }
  long status = 0;
  curl_easy_getinfo(handles.easy, CURLINFO_RESPONSE_CODE, &status);
  response.status = static_cast<int>(status);
  return response;
}

}  // namespace kopt::llm
