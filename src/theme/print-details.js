// Paper has no click: open every collapsed block (an exercise's solution) in the print version
// of the book, and whenever a page is printed; a provenance line stays one line on paper.
(function () {
  function openAll() {
    document.querySelectorAll("details:not(.provenance)").forEach(function (d) { d.open = true; });
  }
  if (/print\.html$/.test(location.pathname)) {
    document.addEventListener("DOMContentLoaded", openAll);
  }
  window.addEventListener("beforeprint", openAll);
})();
