/// The page's script and style, served from the console itself (nothing is fetched from
/// elsewhere; the CSP allows only this origin). The script never writes HTML: rows are built
/// with textContent.
enum Assets {
    static func response(_ asset: Route.Asset) -> HTTPResponse {
        switch asset {
        case .script: HTTPResponse(status: 200, headers: [("Content-Type", "text/javascript; charset=utf-8")], body: .bytes(Array(script.utf8)))
        case .style: HTTPResponse(status: 200, headers: [("Content-Type", "text/css; charset=utf-8")], body: .bytes(Array(style.utf8)))
        }
    }

    static let script = """
        "use strict";
        (function () {
          function refreshStatus(element) {
            var load = function () {
              fetch(element.dataset.refresh, { credentials: "same-origin" })
                .then(function (answer) { return answer.ok ? answer.text() : null; })
                .then(function (text) { if (text !== null) { element.textContent = text; } })
                .catch(function () {});
            };
            load();
            setInterval(load, 5000);
          }

          function row(flow, classes) {
            var tr = document.createElement("tr");
            tr.dataset.id = String(flow.id);
            flow.cells.forEach(function (cell, index) {
              var td = document.createElement("td");
              td.textContent = cell;
              if (classes[index]) { td.className = classes[index]; }
              tr.appendChild(td);
            });
            return tr;
          }

          function follow(table) {
            var body = table.tBodies[0];
            var classes = Array.prototype.map.call(table.tHead.rows[0].cells, function (cell) { return cell.className; });
            var headline = document.getElementById("flows-headline");
            var truncation = document.getElementById("flows-truncation");
            var source = new EventSource(table.dataset.events);
            source.addEventListener("rows", function (event) {
              var data = JSON.parse(event.data);
              if (data.reset) {
                while (body.firstChild) { body.removeChild(body.firstChild); }
                truncation.textContent = data.truncation || "";
              }
              if (data.headline) { headline.textContent = data.headline; }
              data.rows.forEach(function (flow) {
                var made = row(flow, classes);
                var old = body.querySelector('tr[data-id="' + String(flow.id) + '"]');
                if (old) { body.replaceChild(made, old); return; }
                // Newest first: a higher id goes above every lower one.
                var before = body.firstChild;
                while (before && Number(before.dataset.id) > flow.id) { before = before.nextSibling; }
                body.insertBefore(made, before);
              });
              table.dataset.updated = String(Date.now());
            });
            var stop = function (event) {
              source.close();
              var note = document.createElement("p");
              note.className = "message done";
              note.id = "live-ended";
              note.textContent = JSON.parse(event.data).text;
              table.parentNode.insertBefore(note, table);
              setTimeout(function () { window.location.reload(); }, 1500);
            };
            source.addEventListener("ended", stop);
            source.addEventListener("reload", stop);
          }

          document.addEventListener("DOMContentLoaded", function () {
            var status = document.getElementById("status");
            if (status && status.dataset.refresh) { refreshStatus(status); }
            var table = document.getElementById("flows");
            if (table && table.dataset.events && window.EventSource) { follow(table); }
            document.querySelectorAll("button[data-confirm]").forEach(function (button) {
              button.addEventListener("click", function (event) {
                if (!window.confirm(button.dataset.confirm)) { event.preventDefault(); }
              });
            });
          });
        })();

        """

    static let style = """
        :root { --ink: #1b1f24; --paper: #fbfbf8; --line: #d6d6cf; --accent: #1f5f8b; --refused: #9b1c1c; --done: #1d6b34; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 18px/1.45 system-ui, sans-serif; color: var(--ink); background: var(--paper); }
        header { display: flex; flex-wrap: wrap; align-items: center; gap: 1rem; padding: .6rem 1rem; background: var(--ink); color: #fff; }
        header a, header .link { color: #fff; text-decoration: none; font-weight: 600; }
        header nav { display: flex; gap: 1.2rem; align-items: center; margin-left: auto; }
        .brand { font-size: 1.2rem; }
        main { padding: 1rem; max-width: 84rem; margin: 0 auto; }
        h1 { font-size: 1.6rem; margin: .2rem 0 1rem; }
        h2 { font-size: 1.2rem; margin: 1.6rem 0 .6rem; }
        pre { background: #fff; border: 1px solid var(--line); padding: .8rem; overflow-x: auto; font-size: .85rem; line-height: 1.35; }
        pre.listing a { color: inherit; text-decoration: none; }
        pre.listing a:hover, pre.listing a:focus { background: #e8f0f6; }
        pre.listing a.open { font-weight: 700; color: var(--accent); }
        pre.listing .head { font-weight: 700; }
        .message { padding: .8rem 1rem; border-radius: .4rem; font-weight: 600; }
        .message.done { background: #e3f3e7; color: var(--done); }
        .message.refused { background: #f8e3e3; color: var(--refused); }
        form { display: grid; gap: .6rem; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); align-items: end; margin: .6rem 0; }
        form.inline, form.marker, form.end, form.export { display: inline-block; margin: 0; }
        label { display: flex; flex-direction: column; gap: .2rem; font-size: .9rem; }
        label.check { flex-direction: row; align-items: center; gap: .5rem; }
        input, select, button { font: inherit; padding: .55rem .7rem; border: 1px solid var(--line); border-radius: .4rem; background: #fff; }
        button { background: var(--accent); color: #fff; border: none; cursor: pointer; font-weight: 600; }
        button.link { background: none; padding: 0; }
        .big { font-size: 1.1rem; padding: .8rem 1.2rem; }
        .markers { display: flex; flex-wrap: wrap; gap: .8rem; margin: .4rem 0 1rem; }
        .marker-button { font-size: 1.35rem; padding: 1.2rem 1.6rem; min-width: 12rem; border-radius: .6rem; }
        form.marker.label { display: flex; gap: .6rem; align-items: stretch; }
        form.marker.label input[type=text] { font-size: 1.2rem; min-width: 14rem; }
        .end-button { background: var(--refused); font-size: 1.2rem; padding: 1rem 1.4rem; border-radius: .6rem; }
        .open-recordings { list-style: none; padding: 0; }
        .open-recordings a { display: block; padding: .8rem; background: #e8f0f6; border-radius: .4rem; color: var(--accent); font-family: monospace; }
        .table { overflow-x: auto; }
        table { border-collapse: collapse; width: 100%; font-size: .85rem; background: #fff; }
        th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); white-space: nowrap; }
        th.number, td.number { text-align: right; }
        td.wrap { white-space: normal; overflow-wrap: break-word; }
        td.wrap:last-child { min-width: 12rem; }
        thead th { position: sticky; top: 0; background: #eef0ea; }
        .note { color: #555; font-size: .9rem; }
        form.login { max-width: 24rem; grid-template-columns: 1fr; }
        @media (max-width: 64rem) { table { font-size: .78rem; } th, td { padding: .3rem .25rem; } th { white-space: normal; } td.wrap:last-child { min-width: 8rem; } }
        @media (max-width: 40rem) { body { font-size: 17px; } .marker-button { width: 100%; } form.marker { display: block; width: 100%; } }

        """
}
