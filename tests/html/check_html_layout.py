#!/usr/bin/env python3
"""Loads kopt HTML reports in headless Chromium at several window widths, checks element boxes for
overflow and overlap with JavaScript, and saves a full-page screenshot of each (issue 19).

usage: check_html_layout.py OUT_DIR REPORT.html [REPORT.html ...] [--widths 1280,800]

Checks, per report and width:
  - the page does not scroll sideways (document wider than the window);
  - no element of a report section sticks out of <main> (tables, figures, code);
  - in the kernels table: no column narrower than 60 px, no row taller than 120 px, a long kernel
    name is cut on one line (its full name in the title attribute);
  - in every SVG chart: no two text labels overlap (their outlines as drawn: a label rotated along a
    roofline slope is a rotated rectangle), no label sits on a point marker (a circle), every label
    lies inside the chart, no drawn horizontal line (a ceiling) runs through a label.
Writes OUT_DIR/<report>-<width>.png and each chart as OUT_DIR/<report>-<width>-chart<N>.png. Exit status: 0 clean, 1 problems found (listed), 77 when
Chromium or Selenium is missing (the ctest case then counts as skipped), 2 on bad usage.
"""
import os
import shutil
import sys

SKIP = 77

CHECKS_JS = r"""
const problems = [];
const main = document.querySelector('main');
const mainBox = main.getBoundingClientRect();
const doc = document.documentElement;
if (doc.scrollWidth > window.innerWidth + 1)
  problems.push(`page is ${doc.scrollWidth}px wide in a ${window.innerWidth}px window`);
const name = (el) => {
  let s = el.tagName.toLowerCase();
  if (el.id) s += '#' + el.id;
  if (el.className && typeof el.className === 'string') s += '.' + el.className.split(' ').join('.');
  const text = (el.textContent || '').trim().slice(0, 40);
  return text ? `${s} "${text}"` : s;
};
// What of an element shows: its box cut to every ancestor (inside <main>) that clips its overflow
// (a table cell that ends a long name with an ellipsis).
const visibleBox = (el) => {
  const r = el.getBoundingClientRect();
  let left = r.left, right = r.right;
  for (let p = el.parentElement; p && p !== main; p = p.parentElement) {
    if (getComputedStyle(p).overflowX === 'visible') continue;
    const c = p.getBoundingClientRect();
    left = Math.max(left, c.left), right = Math.min(right, c.right);
  }
  return {left, right, width: Math.max(0, right - left)};
};
for (const el of main.querySelectorAll('table, figure, svg, pre, code, section, article, p, h2')) {
  const box = visibleBox(el);
  if (box.width === 0) continue;
  if (box.right > mainBox.right + 1 || box.left < mainBox.left - 1)
    problems.push(`${name(el)} overflows <main>: ${Math.round(box.left)}..${Math.round(box.right)} px, main ${Math.round(mainBox.left)}..${Math.round(mainBox.right)}`);
}
for (const table of main.querySelectorAll('table.summary')) {
  for (const th of table.querySelectorAll('tr:first-child th')) {
    const w = th.getBoundingClientRect().width;
    if (w < 60) problems.push(`kernels table: column "${th.textContent}" is ${Math.round(w)} px wide`);
  }
  for (const tr of table.querySelectorAll('tr')) {
    const h = tr.getBoundingClientRect().height;
    if (h > 120) problems.push(`kernels table: a row is ${Math.round(h)} px tall: ${name(tr)}`);
  }
  for (const code of table.querySelectorAll('td.kname code')) {
    if (!code.getAttribute('title')) problems.push(`kernels table: ${name(code)} has no title (full name)`);
    const cell = code.parentElement.getBoundingClientRect();
    if (code.getBoundingClientRect().height > 30 && cell.height > 40)
      problems.push(`kernels table: kernel name wraps: ${name(code)}`);
  }
}
// A text label's outline on the screen: its box in its own (possibly rotated) frame, mapped through its
// transform, as four corners; rotated labels (the roofline's slopes) are not their bounding rectangles.
const corners = (el) => {
  const b = el.getBBox(), m = el.getScreenCTM();
  return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]]
    .map(([x, y]) => new DOMPoint(x, y).matrixTransform(m)).map(p => [p.x, p.y]);
};
// Separating-axis test of two convex polygons; they overlap by more than `pad` px on every axis.
const overlap = (a, b, pad) => {
  for (const poly of [a, b]) {
    for (let i = 0; i < poly.length; ++i) {
      const [x1, y1] = poly[i], [x2, y2] = poly[(i + 1) % poly.length];
      let nx = y1 - y2, ny = x2 - x1;
      const len = Math.hypot(nx, ny) || 1;
      nx /= len; ny /= len;
      const project = (q) => q.map(([x, y]) => x * nx + y * ny);
      const pa = project(a), pb = project(b);
      if (Math.max(...pa) - pad <= Math.min(...pb) || Math.max(...pb) - pad <= Math.min(...pa)) return false;
    }
  }
  return true;
};
// A circle (center, radius) and a convex polygon overlap: the center inside, or an edge nearer than r.
const coversCircle = (poly, cx, cy, r, pad) => {
  const crosses = poly.map(([x1, y1], i) => {
    const [x2, y2] = poly[(i + 1) % poly.length];
    return (x2 - x1) * (cy - y1) - (y2 - y1) * (cx - x1);
  });
  if (crosses.every(c => c >= 0) || crosses.every(c => c <= 0)) return true;  // the center is inside
  return poly.some(([x1, y1], i) => {
    const [x2, y2] = poly[(i + 1) % poly.length];
    const dx = x2 - x1, dy = y2 - y1;
    const t = Math.max(0, Math.min(1, ((cx - x1) * dx + (cy - y1) * dy) / (dx * dx + dy * dy || 1)));
    return Math.hypot(x1 + t * dx - cx, y1 + t * dy - cy) < r - pad;
  });
};
for (const svg of main.querySelectorAll('svg.chart')) {
  const chartBox = svg.getBoundingClientRect();
  const texts = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim() !== '');
  const polys = texts.map(corners);
  const marks = [...svg.querySelectorAll('circle')].map(c => {
    const box = c.getBoundingClientRect();
    return {x: box.left + box.width / 2, y: box.top + box.height / 2, r: box.width / 2};
  });
  const hlines = [...svg.querySelectorAll('line')].filter(l => !l.closest('g.grid') && l.getAttribute('y1') === l.getAttribute('y2'))
    .map(l => l.getBoundingClientRect()).map(b => ({y: b.top + b.height / 2, left: b.left, right: b.right}));
  const title = (svg.getAttribute('aria-label') || svg.querySelector('title')?.textContent || 'chart').slice(0, 30);
  for (let i = 0; i < texts.length; ++i) {
    const p = polys[i];
    if (p.some(([x, y]) => x < chartBox.left - 1 || x > chartBox.right + 1 || y < chartBox.top - 1 || y > chartBox.bottom + 1))
      problems.push(`${title}: label "${texts[i].textContent}" leaves the chart`);
    for (let j = i + 1; j < texts.length; ++j) {
      if (overlap(p, polys[j], 2))
        problems.push(`${title}: labels overlap: "${texts[i].textContent}" / "${texts[j].textContent}"`);
    }
    for (const m of marks) {
      if (coversCircle(p, m.x, m.y, m.r, 1)) problems.push(`${title}: label "${texts[i].textContent}" covers a point marker`);
    }
    // A drawn horizontal line (a roofline ceiling, not the grid) through the glyphs strikes the label out.
    const ys = p.map(([, y]) => y), xs = p.map(([x]) => x);
    for (const line of hlines) {
      if (line.y > Math.min(...ys) + 2 && line.y < Math.max(...ys) - 2 && line.right > Math.min(...xs) && line.left < Math.max(...xs))
        problems.push(`${title}: a line runs through label "${texts[i].textContent}"`);
    }
  }
}
return problems;
"""


def main(argv):
    widths = [1280, 800]
    args = []
    i = 0
    while i < len(argv):
        if argv[i] == '--widths':
            widths = [int(w) for w in argv[i + 1].split(',')]
            i += 2
            continue
        args.append(argv[i])
        i += 1
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out_dir, reports = args[0], args[1:]
    browser = shutil.which('chromium') or shutil.which('chromium-browser')
    driver_path = shutil.which('chromedriver')
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        print('check_html_layout: skipped: python3-selenium is not installed', file=sys.stderr)
        return SKIP
    if not browser or not driver_path:
        print('check_html_layout: skipped: chromium and chromium-driver are not installed', file=sys.stderr)
        return SKIP
    os.makedirs(out_dir, exist_ok=True)
    options = Options()
    options.binary_location = browser
    for flag in ('--headless=new', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--force-device-scale-factor=1'):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    failures = 0
    try:
        for report in reports:
            url = 'file://' + os.path.abspath(report)
            stem = os.path.splitext(os.path.basename(report))[0]
            for width in widths:
                driver.set_window_size(width, 1000)
                driver.get(url)
                # The window's inner width is what the checks compare with: make it exactly `width`.
                inner = driver.execute_script('return window.innerWidth')
                driver.set_window_size(width + (width - inner), 1000)
                problems = driver.execute_script(CHECKS_JS)
                height = driver.execute_script('return document.documentElement.scrollHeight')
                driver.set_window_size(width + (width - inner), min(height, 16000))
                png = os.path.join(out_dir, f'{stem}-{width}.png')
                driver.save_screenshot(png)
                # Each chart on its own too, at full size: the page screenshot is too tall to read a chart in.
                from selenium.webdriver.common.by import By
                for index, chart in enumerate(driver.find_elements(By.CSS_SELECTOR, 'main svg.chart')):
                    chart.screenshot(os.path.join(out_dir, f'{stem}-{width}-chart{index + 1}.png'))
                status = 'ok' if not problems else f'{len(problems)} problem(s)'
                print(f'{report} at {width} px: {status} ({png})')
                for problem in problems:
                    print(f'  - {problem}')
                failures += len(problems)
    finally:
        driver.quit()
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
