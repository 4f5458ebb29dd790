// HttpTransport: one HTTP POST, behind an interface so that tests can use a
// local server or a fake. CurlHttpTransport is the libcurl implementation.
//
// A response with any status code (including 4xx/5xx) is an OK result; only
// a network failure (connection refused, DNS, TLS, connect or read timeout)
// is a non-OK Status (Unavailable) whose message names the URL and curl's
// error text.
//
// Thread safety: Post may be called from several threads at once
// (CurlHttpTransport uses one easy handle per call; curl_global_init runs
// once, guarded by std::call_once).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace kopt::llm {

struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased; last value wins
  std::string body;
};

struct HttpRequest {
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;  // name, value
  std::string body;
  double connect_timeout_seconds = 10;
  // A read timeout: the transfer fails when no byte moves for this long
  // (checked about once a second; as a backstop, the whole exchange may take
  // at most connect + 4x this long).
  double read_timeout_seconds = 120;
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  virtual Result<HttpResponse> Post(const HttpRequest& request) = 0;
};

class CurlHttpTransport : public HttpTransport {
 public:
  CurlHttpTransport();
  Result<HttpResponse> Post(const HttpRequest& request) override;
};

}  // namespace kopt::llm
