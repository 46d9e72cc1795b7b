// Measures the page in the frame: sideways scrolling, table cells off screen or cut, text under 12 px,
// words split across lines.
function measure(frame) {
  const doc = frame.contentDocument, win = frame.contentWindow, problems = [];
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : '');
  const root = doc.documentElement;
  if (root.scrollWidth > root.clientWidth) problems.push('the page scrolls sideways: ' + root.scrollWidth + ' px of content in ' + root.clientWidth + ' px');
  for (const el of doc.body.querySelectorAll('*')) {
    if (el.clientWidth === 0 || el.scrollWidth <= el.clientWidth + 1) continue;
    const style = win.getComputedStyle(el);
    if (style.overflowX === 'visible' || style.overflowX === 'clip' || style.overflowX === 'hidden') continue;
    const says = el.matches('div.table[role=region][tabindex="0"]') && /scrolls sideways/.test(el.getAttribute('aria-label') || '')
      && style.backgroundAttachment.includes('local') && style.backgroundImage.includes('gradient');
    if (!says) problems.push(name(el) + ' scrolls sideways (' + el.scrollWidth + ' in ' + el.clientWidth + ' px) without saying so');
  }
  // Every cell of a table is read where it is: none off screen behind a sideways scroll, none with
  // its text cut.
  const width = root.clientWidth;
  for (const cell of doc.body.querySelectorAll('td, tbody th')) {
    const rect = cell.getBoundingClientRect();
    if (rect.width === 0) continue;
    if (rect.left < -1 || rect.right > width + 1) problems.push('a table cell is off screen: ' + name(cell) + ' "' + cell.textContent.trim().slice(0, 30) + '" at ' + Math.round(rect.left) + '–' + Math.round(rect.right) + ' px of ' + width);
    else if (cell.scrollWidth > cell.clientWidth + 1) problems.push('a table cell cuts its text: ' + name(cell) + ' "' + cell.textContent.trim().slice(0, 30) + '"');
  }
  const walker = doc.createTreeWalker(doc.body, NodeFilter.SHOW_TEXT);
  const small = new Set(), split = new Set();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.data.trim()) continue;
    const el = node.parentElement;
    if (!el || el.getClientRects().length === 0) continue;
    let size = parseFloat(win.getComputedStyle(el).fontSize);
    if (el instanceof win.SVGElement) size *= el.getScreenCTM().a;
    if (size < 11.95) small.add(name(el) + ' "' + node.data.trim().slice(0, 30) + '" at ' + size.toFixed(1) + ' px');
    if (el instanceof win.SVGElement) continue;
    const words = /[\p{L}\p{N}]{2,}/gu;
    for (let m = words.exec(node.data); m; m = words.exec(node.data)) {
      const range = doc.createRange();
      range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (tops.size > 1) split.add(name(el) + ' splits "' + m[0] + '"');
    }
  }
  for (const s of small) problems.push('text under 12 px: ' + s);
  for (const s of split) problems.push('a word split across lines: ' + s);
  return problems;
}
