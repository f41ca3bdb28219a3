// The browser check's probe (tools/book/src/browser.rs). `book browse` puts it first in the <head>
// of a copy of every page, so that it sees every error; once the page and its fonts have loaded it
// measures the page and hands its findings to the harness page that framed it (postMessage), and
// writes them into the page as <script type="application/json" id="probe-result">.
(function () {
  "use strict";
  var errors = [];
  var consoleError = console.error;
  console.error = function () {
    errors.push("console.error: " + Array.prototype.map.call(arguments, String).join(" "));
    return consoleError.apply(console, arguments);
  };
  window.addEventListener("error", function (e) {
    var t = e.target;
    if (t && t !== window && t.tagName) {
      errors.push("failed to load " + t.tagName.toLowerCase() + " " + (t.src || t.href || ""));
    } else {
      errors.push("uncaught error: " + e.message + " (" + e.filename + ":" + e.lineno + ")");
    }
  }, true);
  window.addEventListener("unhandledrejection", function (e) {
    errors.push("unhandled promise rejection: " + e.reason);
  });

  // The page's name for the report: its path under the book, as the harness asked for it.
  function pageName() {
    return decodeURIComponent(location.pathname.replace(/^\//, ""));
  }

  // tag#id.class "text…" (under "heading"): enough to find the element in the page.
  function describe(el) {
    var s = el.tagName.toLowerCase();
    if (el.id) s += "#" + el.id;
    var cls = typeof el.className === "string" ? el.className : (el.className && el.className.baseVal) || "";
    cls.split(/\s+/).filter(Boolean).forEach(function (c) { s += "." + c; });
    var text = (el.textContent || "").replace(/\s+/g, " ").trim();
    if (text.length > 60) text = text.slice(0, 57) + "…";
    if (text) s += " \"" + text + "\"";
    var h = heading(el);
    if (h) s += " (under \"" + h + "\")";
    return s;
  }

  // The text of the last heading before `el` in document order.
  function heading(el) {
    var hs = document.querySelectorAll("main h1, main h2, main h3, main h4");
    var last = null;
    for (var i = 0; i < hs.length; i++) {
      if (hs[i] === el || hs[i].compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) last = hs[i];
      else break;
    }
    return last ? last.textContent.replace(/\s+/g, " ").trim().slice(0, 60) : "";
  }

  function scrollsX(el) {
    var o = getComputedStyle(el).overflowX;
    return o === "auto" || o === "scroll";
  }

  // The box `el` must stay inside: its containing block's content box for an element in flow,
  // its positioned ancestor's padding box for an absolutely positioned one.
  function container(el, style) {
    if (style.position === "absolute") {
      var op = el.offsetParent;
      if (!op) return null;
      var r = op.getBoundingClientRect();
      return { el: op, right: r.left + op.clientLeft + op.clientWidth };
    }
    var p = el.parentElement;
    while (p) {
      var d = getComputedStyle(p).display;
      if (d !== "contents" && d.indexOf("inline") !== 0 && d.indexOf("table-") !== 0) break;
      p = p.parentElement;
    }
    if (!p) return null;
    var pr = p.getBoundingClientRect();
    var ps = getComputedStyle(p);
    return { el: p, right: pr.left + p.clientLeft + p.clientWidth - parseFloat(ps.paddingRight || "0") };
  }

  function probe(wide) {
    var main = document.querySelector("main") || document.body;
    var overflow = [];
    var scrolling = [];
    var seen = new Set();
    var all = [main].concat(Array.prototype.slice.call(main.querySelectorAll("*")));
    all.forEach(function (el) {
      if (el.ownerSVGElement) return; // inside an SVG: the <svg> itself is checked
      var style = getComputedStyle(el);
      if (style.position === "fixed" || style.display === "none") return;
      var r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) return;
      // A scroll box that scrolls: by design at the narrow width, a failure at the wide one
      // unless it is one of the book's tables as wide as a class (div.measure-scroll).
      if (el !== main && scrollsX(el) && el.scrollWidth > el.clientWidth + 1) {
        scrolling.push(el);
        if (wide && !el.classList.contains("measure-scroll")) {
          // mdBook 0.5 scrolls the <code> inside a <pre>; older versions the <pre>.
          var code = el.tagName === "PRE" || el.closest("pre") !== null;
          overflow.push({
            element: describe(el),
            detail: (code ? "a code block" : "a scroll box") + " that scrolls sideways: " +
              el.scrollWidth + " px of content in " + el.clientWidth + " px (" +
              (el.scrollWidth - el.clientWidth) + " px out of sight)",
            kind: code ? "code" : "scroll",
          });
        }
      }
      if (el === main) return;
      var c = container(el, style);
      if (!c) return;
      var over = r.right - c.right;
      if (over <= 1) return;
      // Inside a scroll box within the page's main column: the reader can scroll to it.
      for (var a = el.parentElement; a && a !== main && main.contains(a); a = a.parentElement) {
        if (scrollsX(a)) return;
      }
      // One report per overflowing container: the outermost element that passes it.
      if (seen.has(c.el)) return;
      seen.add(c.el);
      overflow.push({
        element: describe(el),
        detail: Math.round(r.width) + " px wide, its right edge " + Math.round(over) +
          " px past its container's content box (" + describe(c.el).split(" ")[0] + ")",
        kind: "overflow",
      });
    });

    var claims = [];
    var external = [];
    document.querySelectorAll(".claim, .claim-mark").forEach(function (el) {
      if (el.tagName !== "A" || !el.getAttribute("href")) {
        claims.push({ element: describe(el), detail: "a checked claim that is not a link: its verdict is only in its hover text" });
        return;
      }
      var url = new URL(el.href);
      var id = decodeURIComponent(url.hash.slice(1));
      if (!id) {
        claims.push({ element: describe(el), detail: "a checked claim whose link (" + el.getAttribute("href") + ") names no entry" });
      } else if (url.pathname === location.pathname) {
        if (!document.getElementById(id)) {
          claims.push({ element: describe(el), detail: "a checked claim linking to #" + id + ", which is not on the page" });
        }
      } else {
        external.push({ element: describe(el), page: decodeURIComponent(url.pathname.replace(/^\//, "")), id: id });
      }
    });

    var links = [];
    // (A claim's own link is checked above.)
    document.querySelectorAll('a[href^="#"]:not(.claim):not(.claim-mark)').forEach(function (a) {
      var id = decodeURIComponent(a.getAttribute("href").slice(1));
      if (id && !document.getElementById(id)) {
        links.push({ element: describe(a), detail: "links to #" + id + ", which is not on the page" });
      }
    });

    return {
      page: pageName(),
      width: document.documentElement.clientWidth,
      overflow: overflow,
      claims: claims,
      external: external,
      links: links,
      errors: errors.slice(),
      scrolling: scrolling.length,
    };
  }

  function report(result) {
    var s = document.createElement("script");
    s.type = "application/json";
    s.id = "probe-result";
    s.textContent = JSON.stringify(result).replace(/</g, "\\u003c");
    document.body.appendChild(s);
    if (window.parent !== window) window.parent.postMessage({ probe: result }, "*");
  }

  window.addEventListener("load", function () {
    var wide = /[?&]wide=1/.test(location.search);
    var fonts = document.fonts ? document.fonts.ready : Promise.resolve();
    fonts.then(function () {
      // After the tasks the load queued (mdBook's own scripts); measuring forces the layout. (Not
      // requestAnimationFrame: Chromium does not run it in frames outside the harness's viewport.)
      setTimeout(function () {
        var result;
        try {
          result = probe(wide);
        } catch (e) {
          result = { page: pageName(), errors: errors.concat(["the probe failed: " + e]) };
        }
        report(result);
      }, 0);
    });
  });
})();
