// The annotation page's requests: JSON posts with the CSRF token, and answers read as {status, json}
// whatever the server sent (a proxy's HTML error page reads as an empty object).

/** The CSRF token: the cookie's, else the one a sign-in on the page brought (`fresh`), else the form's. */
export function csrfToken(form, fresh) {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  if (match) return decodeURIComponent(match[1]);
  if (fresh) return fresh;
  const input = form.querySelector("input[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

/** POST `data` as JSON; `keepalive` lets it outlive the page (sent while leaving). */
export function postJson(url, data, { csrf, keepalive = false }) {
  return fetch(url, {
    method: "POST",
    credentials: "same-origin",
    keepalive,
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrf },
    body: JSON.stringify(data),
  });
}

/** GET `url` asking for JSON. */
export function getJson(url) {
  return fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
}

/** The response as {status, json}; a body that is not JSON reads as {}. */
export function readAnswer(response) {
  const type = response.headers.get("Content-Type") || "";
  if (type.indexOf("application/json") === -1) return Promise.resolve({ status: response.status, json: {} });
  return response.json().then(
    (json) => ({ status: response.status, json }),
    () => ({ status: response.status, json: {} }));
}
