// Renderers of a Diagnosis: terminal (ANSI colour on a tty), Markdown, JSON
// (versioned: docs/json-schema.md), a self-contained HTML page with inline
// SVG charts (roofline; warp-stall breakdown), and the compact feedback a
// programmer agent receives (docs/feedback-format.md). One implementation per
// file.
//
// HTML escapes every string it embeds: kernel names, source lines and file
// names are untrusted.
//
// Thread safety: renderers are stateless after construction.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "analysis/diagnosis.h"
#include "core/status.h"
#include "report/report_format.h"

namespace kopt {

struct RenderOptions {
  bool color = false;    // ANSI colour (terminal only); the CLI sets it on a tty unless NO_COLOR
  int width = 100;       // terminal columns
  bool verbose = false;  // include every metric-level detail
};

class Renderer {
 public:
  virtual ~Renderer() = default;
  virtual std::string Render(const Diagnosis& diagnosis) const = 0;
};

std::unique_ptr<Renderer> MakeRenderer(ReportFormat format, const RenderOptions& options);

// One factory per implementation, each defined in its own file
// (terminal_renderer.cc, markdown_renderer.cc, json_renderer.cc, html_renderer.cc,
// feedback_renderer.cc).
std::unique_ptr<Renderer> MakeTerminalRenderer(const RenderOptions& options);
std::unique_ptr<Renderer> MakeMarkdownRenderer(const RenderOptions& options);
std::unique_ptr<Renderer> MakeJsonRenderer(const RenderOptions& options);
std::unique_ptr<Renderer> MakeHtmlRenderer(const RenderOptions& options);
// The compact prompt section for a programmer agent (docs/feedback-format.md).
std::unique_ptr<Renderer> MakeFeedbackRenderer(const RenderOptions& options);

// The JSON schema version written as "schema_version" (docs/json-schema.md).
inline constexpr std::string_view kJsonSchemaVersion = "1.7";

}  // namespace kopt
