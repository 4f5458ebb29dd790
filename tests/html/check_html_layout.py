#!/usr/bin/env python3
"""Loads kopt HTML reports in headless Chromium at several window widths, checks element boxes for
overflow and overlap with JavaScript, and saves a full-page screenshot of each (issue 19).

usage: check_html_layout.py OUT_DIR REPORT.html [REPORT.html ...] [--widths 1280,800]

Checks, per report and width:
  - the page does not scroll sideways (document wider than the window);
  - no element of a report section sticks out of <main> (tables, figures, code);
  - in the kernels table: no column narrower than 60 px, no row taller than 120 px, a long kernel
    name is cut on one line (its full name in the title attribute);
  - in every SVG chart: no two text labels overlap, no label sits on a point marker, every label
    and marker lies inside the chart.
Writes OUT_DIR/<report>-<width>.png. Exit status: 0 clean, 1 problems found (listed), 77 when
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
for (const el of main.querySelectorAll('table, figure, svg, pre, code, section, article, p, h2')) {
  const box = el.getBoundingClientRect();
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
const intersect = (a, b, pad) => !(a.right - pad <= b.left || b.right - pad <= a.left ||
                                   a.bottom - pad <= b.top || b.bottom - pad <= a.top);
for (const svg of main.querySelectorAll('svg.chart')) {
  const chartBox = svg.getBoundingClientRect();
  const texts = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim() !== '');
  const boxes = texts.map(t => t.getBoundingClientRect());
  const marks = [...svg.querySelectorAll('circle')].map(c => c.getBoundingClientRect());
  const title = (svg.getAttribute('aria-label') || svg.querySelector('title')?.textContent || 'chart').slice(0, 30);
  for (let i = 0; i < texts.length; ++i) {
    const b = boxes[i];
    if (b.left < chartBox.left - 1 || b.right > chartBox.right + 1 || b.top < chartBox.top - 1 || b.bottom > chartBox.bottom + 1)
      problems.push(`${title}: label "${texts[i].textContent}" leaves the chart`);
    for (let j = i + 1; j < texts.length; ++j) {
      if (intersect(b, boxes[j], 2))
        problems.push(`${title}: labels overlap: "${texts[i].textContent}" / "${texts[j].textContent}"`);
    }
    for (const m of marks) {
      if (intersect(b, m, 1)) problems.push(`${title}: label "${texts[i].textContent}" covers a point marker`);
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
