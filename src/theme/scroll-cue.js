// Narrow screens: a table or chart wider than the text column scrolls in its own box. This marks
// each box that scrolls with data-scrolls="right", "left" or "both" (where there is more to see),
// so that theme/measure.css says "scroll →" above it and shades the edge of its sticky first
// column; and it wraps the tables the preprocessor leaves unwrapped (machines, versions,
// schedule), so that they scroll in a box too rather than widen the page.
(function () {
  var BOXES = "div.measure-table, div.measure-scroll, figure.measure-figure, div.table-wrapper";

  function wrapTables() {
    document.querySelectorAll("main table.measure").forEach(function (table) {
      var parent = table.parentElement;
      if (parent.matches("div.measure-table, div.measure-scroll, div.table-wrapper")) return;
      var box = document.createElement("div");
      box.className = "measure-table";
      parent.insertBefore(box, table);
      box.appendChild(table);
    });
  }

  // Marks `box` by how `scroller` (the box itself, or the code inside a <pre>) is scrolled.
  function mark(box, scroller) {
    scroller = scroller || box;
    var hidden = scroller.scrollWidth - scroller.clientWidth;
    if (hidden <= 1) {
      box.removeAttribute("data-scrolls");
      return;
    }
    var left = scroller.scrollLeft > 1;
    var right = scroller.scrollLeft < hidden - 1;
    box.setAttribute("data-scrolls", left && right ? "both" : left ? "left" : "right");
  }

  // Code scrolls inside its block (mdBook's .hljs): its <pre> gets the same mark, shown as a
  // shaded edge where there is more to see.
  function markCode(code) {
    mark(code.parentElement, code);
  }

  function start() {
    wrapTables();
    document.querySelectorAll("main pre > code").forEach(function (code) {
      markCode(code);
      code.addEventListener("scroll", function () { markCode(code); }, { passive: true });
    });
    var boxes = document.querySelectorAll(BOXES);
    boxes.forEach(function (box) {
      mark(box);
      box.addEventListener("scroll", function () { mark(box); }, { passive: true });
    });
    if (window.ResizeObserver) {
      var seen = new ResizeObserver(function (entries) {
        entries.forEach(function (e) { mark(e.target); });
      });
      boxes.forEach(function (box) { seen.observe(box); });
    }
    window.addEventListener("load", function () { boxes.forEach(function (box) { mark(box); }); });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
