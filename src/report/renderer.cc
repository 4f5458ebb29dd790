#include "report/renderer.h"

#include <string>

namespace kopt {

std::unique_ptr<Renderer> MakeRenderer(ReportFormat format, const RenderOptions& options) {
  switch (format) {
    case ReportFormat::kTerminal: return MakeTerminalRenderer(options);
    case ReportFormat::kMarkdown: return MakeMarkdownRenderer(options);
    case ReportFormat::kJson: return MakeJsonRenderer(options);
    case ReportFormat::kHtml: return MakeHtmlRenderer(options);
    case ReportFormat::kFeedback: return MakeFeedbackRenderer(options);
  }
  return MakeTerminalRenderer(options);
}

}  // namespace kopt
