// The live table follows its table: every 500 ms it asks for the live part, which answers 204
// while the table's version is the one shown; a new version replaces the part. An expired
// session (401) reloads the page, which goes to sign-in. Written for this project (no library).
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live) { return; }
  var src = live.getAttribute("data-src");
  var version = live.getAttribute("data-version");
  var busy = false;
  function poll() {
    if (busy) { return; }
    busy = true;
    fetch(src + "?v=" + encodeURIComponent(version), { credentials: "same-origin", cache: "no-store" })
      .then(function (response) {
        if (response.status === 401) { window.location.reload(); return null; }
        if (response.status !== 200) { return null; }
        return response.text();
      })
      .then(function (html) {
        if (html === null) { return; }
        var parsed = new DOMParser().parseFromString(html, "text/html");
        var marker = parsed.getElementById("live-version");
        live.replaceChildren.apply(live, Array.prototype.slice.call(parsed.body.childNodes));
        if (marker) { version = marker.getAttribute("data-version"); }
        live.setAttribute("data-version", version);
      })
      .catch(function () { /* the next poll tries again */ })
      .then(function () { busy = false; });
  }
  window.setInterval(poll, 500);
})();
