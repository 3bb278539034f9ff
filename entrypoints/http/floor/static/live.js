// The pages that follow the game refresh a part of themselves in place, so the page keeps its
// scroll position: the live table every 500 ms (its part answers 204 while the table's version
// is the one shown; a new version replaces it), the pit every 10 s. An element with `data-src`
// names its part's address, `data-every` how often (ms), `data-version` the version shown. An
// expired session (401) reloads the page, which goes to sign-in. Written for this project (no
// library).
(function () {
  "use strict";
  function follow(part) {
    var src = part.getAttribute("data-src");
    var every = parseInt(part.getAttribute("data-every") || "500", 10);
    var versioned = part.hasAttribute("data-version");
    var busy = false;
    function poll() {
      if (busy) { return; }
      busy = true;
      var url = versioned ? src + "?v=" + encodeURIComponent(part.getAttribute("data-version")) : src;
      fetch(url, { credentials: "same-origin", cache: "no-store" })
        .then(function (response) {
          if (response.status === 401) { window.location.reload(); return null; }
          if (response.status !== 200) { return null; }
          return response.text();
        })
        .then(function (html) {
          if (html === null) { return; }
          var parsed = new DOMParser().parseFromString(html, "text/html");
          var x = window.scrollX, y = window.scrollY;
          part.replaceChildren.apply(part, Array.prototype.slice.call(parsed.body.childNodes));
          var marker = part.querySelector("#live-version");
          if (versioned && marker) { part.setAttribute("data-version", marker.getAttribute("data-version")); }
          if (window.scrollX !== x || window.scrollY !== y) { window.scrollTo(x, y); }
        })
        .catch(function () { /* the next poll tries again */ })
        .then(function () { busy = false; });
    }
    window.setInterval(poll, every);
  }
  Array.prototype.forEach.call(document.querySelectorAll("[data-src][data-every]"), follow);
})();
