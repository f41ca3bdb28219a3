// Paper has no click: open every collapsed block (an exercise's solution) in the print version
// of the book, and whenever a page is printed; a provenance line stays one line on paper.
// Code on paper: a block longer than LONG lines may break across pages (theme/measure.css keeps
// shorter ones whole), and each line is a block of its own with a hanging indent, so that a line
// that wraps continues under its own indentation rather than at the margin.
(function () {
  var LONG = 30;

  function openAll() {
    document.querySelectorAll("details:not(.provenance)").forEach(function (d) { d.open = true; });
  }

  // Splits a highlighted <code> into one span.code-line per line, closing the highlighter's
  // spans at each line's end and reopening them on the next, so that every line keeps its colours.
  function splitLines(code) {
    if (code.getAttribute("data-lines")) return;
    code.setAttribute("data-lines", "split");
    var html = code.innerHTML.replace(/\n$/, "");
    var token = /(<[^>]+>)|([^<]+)/g;
    var open = [];
    var lines = [];
    var line = "";
    var m;
    while ((m = token.exec(html))) {
      if (m[1]) {
        var tag = m[1];
        if (tag.charAt(1) === "/") open.pop();
        else if (!/\/>$/.test(tag)) open.push(tag);
        line += tag;
        continue;
      }
      var parts = m[2].split("\n");
      for (var i = 0; i < parts.length; i++) {
        if (i > 0) {
          for (var j = open.length - 1; j >= 0; j--) line += "</" + open[j].match(/^<([a-zA-Z0-9]+)/)[1] + ">";
          lines.push(line);
          line = open.join("");
        }
        line += parts[i];
      }
    }
    lines.push(line);
    code.innerHTML = lines.map(function (l) {
      var text = l.replace(/<[^>]+>/g, "").replace(/&[a-z]+;|&#[0-9]+;/g, "x");
      var indent = text.match(/^ */)[0].length;
      // The newline stays in the line: on screen the spans are inline and the text reads as
      // before; on paper each is a block, and an empty line keeps its height.
      return '<span class="code-line" style="--indent:' + indent + 'ch">' + l + "\n</span>";
    }).join("");
  }

  function prepareCode() {
    document.querySelectorAll("pre > code").forEach(function (code) {
      var lines = code.textContent.replace(/\n$/, "").split("\n").length;
      if (lines > LONG) code.parentElement.classList.add("long-code");
      splitLines(code);
    });
  }

  function forPaper() {
    openAll();
    prepareCode();
  }

  if (/print\.html$/.test(location.pathname)) {
    // After the highlighter, which runs as the page's scripts load.
    window.addEventListener("load", forPaper);
    document.addEventListener("DOMContentLoaded", openAll);
  }
  window.addEventListener("beforeprint", forPaper);
})();
