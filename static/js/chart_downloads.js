// Downloads of a page's charts as SVG and PNG, and of their tables as CSV (templates/evaluation/_chart_downloads.html).
//
// A `.chart-downloads` box names its chart (`data-canvas`, a selector), its table (`data-table`) and the file
// name without extension (`data-filename`: project and chart). PNG is the canvas as drawn (toDataURL). SVG is
// drawn here from the same chart: for a Chart.js chart, from its computed layout (scales, ticks, bars, lines,
// legend), so the vector file matches the picture; a canvas drawn by other code may offer its own
// `canvas.chartSvg()` (the kappa heat maps). CSV is the table's cells as shown (a table-less chart: its data).
(function () {
  "use strict";

  const NS = "http://www.w3.org/2000/svg";
  const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?%?$/i;
  // a figure with its interval or level ("-0.340 [-0.664, -0.016] (ordinal)"): led by a number, without any
  // operator a formula would need
  const FIGURE = /^[-+]?(\d|\.\d)[^=+@|!&*\/^"\t\r]*$/;

  function escapeXml(text) {
    return String(text).replace(/[<>&"']/g, function (c) {
      return { "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  function save(blob, filename) {
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = filename;
    document.body.appendChild(link);
    link.click();
    setTimeout(function () {
      URL.revokeObjectURL(link.href);
      link.remove();
    }, 1000);
  }

  // A CSV cell: quoted when it must be; text a spreadsheet would run as a formula starts with ' (numbers and
  // figures, negative ones included, stay as they are).
  function csvCell(value) {
    let text = String(value === null || value === undefined ? "" : value);
    if (/^[=+\-@\t\r]/.test(text) && !NUMBER.test(text) && !FIGURE.test(text)) text = "'" + text;
    return /[",\r\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
  }

  function csv(rows) {
    return rows.map(function (row) { return row.map(csvCell).join(","); }).join("\r\n") + "\r\n";
  }

  // The text a cell shows, without its forms, buttons, folded details and screen-reader-only words.
  function cellText(cell) {
    const copy = cell.cloneNode(true);
    copy.querySelectorAll("form, button, details, script, .visually-hidden").forEach(function (n) { n.remove(); });
    return copy.textContent.replace(/\s+/g, " ").trim();
  }

  function tableRows(table) {
    return Array.from(table.querySelectorAll("tr")).map(function (tr) {
      return Array.from(tr.children).map(cellText);
    });
  }

  function chartRows(chart) {
    const labels = chart.data.labels || [];
    const sets = chart.data.datasets;
    if (labels.length) {
      return [[""].concat(sets.map(function (d) { return d.label || ""; }))].concat(
        labels.map(function (label, i) {
          return [label].concat(sets.map(function (d) {
            const v = d.data[i];
            return v !== null && typeof v === "object" ? v.y : v;
          }));
        })
      );
    }
    const rows = [["series", "x", "y"]];
    sets.forEach(function (d) {
      d.data.forEach(function (p) { rows.push([d.label || "", p.x, p.y]); });
    });
    return rows;
  }

  function text(x, y, content, attrs) {
    return "<text x=\"" + x.toFixed(1) + "\" y=\"" + y.toFixed(1) + "\"" + (attrs || "") + ">" + escapeXml(content) + "</text>";
  }

  function colour(c, fallback) {
    return typeof c === "string" ? c : fallback;
  }

  // The SVG of a Chart.js chart, from the layout Chart.js computed for the canvas.
  function chartSvg(chart) {
    const w = chart.width;
    const h = chart.height;
    const area = chart.chartArea;
    const out = [];
    out.push("<rect width=\"" + w + "\" height=\"" + h + "\" fill=\"#fff\"/>");
    Object.values(chart.scales).forEach(function (scale) {
      if (scale.options.display === false) return;
      const horizontal = scale.isHorizontal();
      const grid = scale.options.grid && scale.options.grid.display !== false && scale.options.grid.drawOnChartArea !== false;
      scale.ticks.forEach(function (tick, i) {
        const p = scale.getPixelForTick(i);
        const label = Array.isArray(tick.label) ? tick.label.join(" ") : tick.label;
        if (horizontal) {
          if (grid) out.push("<line x1=\"" + p + "\" y1=\"" + area.top + "\" x2=\"" + p + "\" y2=\"" + area.bottom + "\" stroke=\"#e5e5e5\"/>");
          out.push(text(p, scale.top + 14, label, " text-anchor=\"middle\""));
        } else {
          if (grid) out.push("<line x1=\"" + area.left + "\" y1=\"" + p + "\" x2=\"" + area.right + "\" y2=\"" + p + "\" stroke=\"#e5e5e5\"/>");
          const left = scale.position === "left";
          out.push(text(left ? scale.right - 8 : scale.left + 8, p + 4, label, left ? " text-anchor=\"end\"" : ""));
        }
      });
      const title = scale.options.title;
      if (title && title.display && title.text) {
        if (horizontal) out.push(text((area.left + area.right) / 2, scale.bottom - 2, title.text, " text-anchor=\"middle\""));
        else {
          const x = scale.position === "left" ? scale.left + 12 : scale.right - 4;
          const y = (area.top + area.bottom) / 2;
          out.push("<text transform=\"translate(" + x + " " + y + ") rotate(-90)\" text-anchor=\"middle\">" + escapeXml(title.text) + "</text>");
        }
      }
    });
    out.push("<rect x=\"" + area.left + "\" y=\"" + area.top + "\" width=\"" + (area.right - area.left) + "\" height=\"" + (area.bottom - area.top) + "\" fill=\"none\" stroke=\"#ccc\"/>");
    chart.data.datasets.forEach(function (dataset, i) {
      if (!chart.isDatasetVisible(i)) return;
      const meta = chart.getDatasetMeta(i);
      if (meta.type === "bar") {
        meta.data.forEach(function (bar) {
          if (!isFinite(bar.x) || !isFinite(bar.y) || !isFinite(bar.base)) return;
          const top = Math.min(bar.y, bar.base);
          out.push("<rect x=\"" + (bar.x - bar.width / 2).toFixed(1) + "\" y=\"" + top.toFixed(1) + "\" width=\"" + bar.width.toFixed(1) +
            "\" height=\"" + Math.abs(bar.base - bar.y).toFixed(1) + "\" fill=\"" + escapeXml(colour(bar.options.backgroundColor, "#888")) +
            "\" stroke=\"" + escapeXml(colour(bar.options.borderColor, "none")) + "\"/>");
        });
      } else {
        const points = meta.data.filter(function (p) { return !p.skip && isFinite(p.x) && isFinite(p.y); });
        const stroke = escapeXml(colour((meta.dataset && meta.dataset.options.borderColor) || dataset.borderColor, "#36a2eb"));
        if (points.length > 1) {
          out.push("<polyline fill=\"none\" stroke=\"" + stroke + "\" stroke-width=\"2\" points=\"" +
            points.map(function (p) { return p.x.toFixed(1) + "," + p.y.toFixed(1); }).join(" ") + "\"/>");
        }
        points.forEach(function (p) {
          out.push("<circle cx=\"" + p.x.toFixed(1) + "\" cy=\"" + p.y.toFixed(1) + "\" r=\"3\" fill=\"" +
            escapeXml(colour(p.options.backgroundColor, "#fff")) + "\" stroke=\"" + stroke + "\"/>");
        });
      }
    });
    const legend = chart.legend;
    if (legend && legend.options.display !== false && legend.legendHitBoxes) {
      const box = legend.options.labels.boxWidth || 40;
      legend.legendItems.forEach(function (item, i) {
        const hit = legend.legendHitBoxes[i];
        if (!hit) return;
        const boxHeight = Math.min(hit.height, 12);
        out.push("<rect x=\"" + hit.left + "\" y=\"" + (hit.top + (hit.height - boxHeight) / 2) + "\" width=\"" + box + "\" height=\"" + boxHeight +
          "\" fill=\"" + escapeXml(colour(item.fillStyle, "#888")) + "\" stroke=\"" + escapeXml(colour(item.strokeStyle, "none")) + "\"/>");
        out.push(text(hit.left + box + 6, hit.top + hit.height / 2 + 4, item.text));
      });
    }
    return "<svg xmlns=\"" + NS + "\" width=\"" + w + "\" height=\"" + h + "\" viewBox=\"0 0 " + w + " " + h +
      "\" font-family=\"sans-serif\" font-size=\"12\" fill=\"#222\">" + out.join("") + "</svg>";
  }

  function svgOf(canvas) {
    if (typeof canvas.chartSvg === "function") return canvas.chartSvg();
    const chart = window.Chart && window.Chart.getChart(canvas);
    if (chart) return chartSvg(chart);
    // a canvas drawn without a vector form: its picture inside an SVG
    return "<svg xmlns=\"" + NS + "\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"" + canvas.width + "\" height=\"" + canvas.height +
      "\"><image width=\"" + canvas.width + "\" height=\"" + canvas.height + "\" href=\"" + canvas.toDataURL("image/png") + "\"/></svg>";
  }

  function pngOf(canvas) {
    // the chart on white: a transparent PNG reads badly on a dark background
    const copy = document.createElement("canvas");
    copy.width = canvas.width;
    copy.height = canvas.height;
    const ctx = copy.getContext("2d");
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, copy.width, copy.height);
    ctx.drawImage(canvas, 0, 0);
    const data = atob(copy.toDataURL("image/png").split(",")[1]);
    const bytes = new Uint8Array(data.length);
    for (let i = 0; i < data.length; i++) bytes[i] = data.charCodeAt(i);
    return new Blob([bytes], { type: "image/png" });
  }

  document.addEventListener("click", function (event) {
    const button = event.target.closest(".chart-downloads button[data-format]");
    if (!button) return;
    const box = button.closest(".chart-downloads");
    const scope = box.closest("figure, section") || document;
    const canvas = box.dataset.canvas ? document.querySelector(box.dataset.canvas) : scope.querySelector("canvas");
    const table = box.dataset.table === "-" ? null : box.dataset.table ? document.querySelector(box.dataset.table) : scope.querySelector("table");
    const name = box.dataset.filename || "chart";
    const format = button.dataset.format;
    if (format === "svg" && canvas) {
      save(new Blob(['<?xml version="1.0" encoding="UTF-8"?>\n' + svgOf(canvas)], { type: "image/svg+xml" }), name + ".svg");
    } else if (format === "png" && canvas) {
      save(pngOf(canvas), name + ".png");
    } else if (format === "csv") {
      const chart = canvas && window.Chart && window.Chart.getChart(canvas);
      const rows = table ? tableRows(table) : chart ? chartRows(chart) : [];
      save(new Blob(["\ufeff" + csv(rows)], { type: "text/csv;charset=utf-8" }), name + ".csv");
    }
  });
})();
