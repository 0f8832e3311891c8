// Dashboard charts from the numbers embedded in #chart-data (the same numbers as the tables).
(function () {
  "use strict";
  const holder = document.getElementById("chart-data");
  if (!holder || !window.Chart) return;
  const data = JSON.parse(holder.textContent);
  const agreement = document.getElementById("agreement-chart");
  if (agreement) {
    const keys = data.agreement_order;
    new window.Chart(agreement, {
      type: "bar",
      data: {
        labels: keys,
        datasets: [
          { label: gettext("Fleiss' kappa"), data: keys.map(function (k) { return data.agreement[k].fleiss; }) },
          { label: gettext("Randolph's kappa"), data: keys.map(function (k) { return data.agreement[k].randolph; }) },
          { label: gettext("Krippendorff's alpha"), data: keys.map(function (k) { return data.agreement[k].alpha; }) },
        ],
      },
      options: { animation: false, scales: { y: { suggestedMin: 0, suggestedMax: 1 } } },
    });
  }
  document.querySelectorAll("canvas.value-chart").forEach(function (canvas) {
    const series = data.values[canvas.dataset.criterion];
    if (!series) return;
    new window.Chart(canvas, {
      data: {
        labels: series.labels,
        datasets: [
          { type: "bar", label: gettext("values given"), data: series.counts, yAxisID: "y" },
          { type: "line", label: gettext("mean gold share"), data: series.gold, yAxisID: "share" },
        ],
      },
      options: { animation: false, scales: { y: { position: "left" }, share: { position: "right", min: 0, max: 1 } } },
    });
  });
})();
