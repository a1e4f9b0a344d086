// SleepLedger: small conveniences. Every page works without this file.
// - The settings form is saved through PATCH /api/v1/me, so the summary is rebuilt at once
//   and the page stays put; without JavaScript the form posts to /settings.
// - A "Copy token" button for a token just created.
(function () {
  'use strict';
  var meta = document.querySelector('meta[name="csrf-token"]');
  var csrfToken = meta ? meta.getAttribute('content') : '';

  function errorMessage(status, text) {
    try {
      var body = JSON.parse(text);
      if (body && body.error && body.error.message) { return body.error.message; }
    } catch (ignored) { /* not JSON */ }
    return 'the server answered ' + status;
  }

  var settings = document.getElementById('settings-form');
  if (settings && window.fetch) {
    var status = document.getElementById('settings-status');
    settings.addEventListener('submit', function (event) {
      event.preventDefault();
      function seconds(name) {
        var hours = parseInt(settings.elements[name + '_hours'].value, 10) || 0;
        var minutes = parseInt(settings.elements[name + '_minutes'].value, 10) || 0;
        return hours * 3600 + minutes * 60;
      }
      var body = {
        time_zone: settings.elements.time_zone.value,
        target_seconds: seconds('target'),
        minimum_seconds: seconds('minimum')
      };
      if (settings.elements.work_day_1) {
        body.work_days = [1, 2, 3, 4, 5, 6, 7].filter(function (day) {
          return settings.elements['work_day_' + day].checked;
        });
        var mode = settings.querySelector('input[name="target_mode"]:checked');
        if (mode) { body.target_mode = mode.value; }
      }
      var button = settings.querySelector('button[type="submit"]');
      button.disabled = true;
      status.textContent = 'Saving…';
      fetch(settings.getAttribute('data-api'), {
        method: 'PATCH',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', 'Accept': 'application/json', 'X-CSRF-Token': csrfToken },
        body: JSON.stringify(body)
      }).then(function (response) {
        return response.text().then(function (text) {
          if (response.ok) {
            status.textContent = 'Saved. Your summary was rebuilt with these settings.';
          } else {
            status.textContent = 'Not saved: ' + errorMessage(response.status, text) + '.';
          }
        });
      }).catch(function () {
        status.textContent = 'Not saved: the server could not be reached.';
      }).then(function () {
        button.disabled = false;
      });
    });
  }

  var copyButtons = document.querySelectorAll('[data-copy]');
  Array.prototype.forEach.call(copyButtons, function (button) {
    var field = document.getElementById(button.getAttribute('data-copy'));
    if (!field || !navigator.clipboard) { return; }
    button.hidden = false;
    button.addEventListener('click', function () {
      navigator.clipboard.writeText(field.value).then(function () {
        button.textContent = 'Copied';
      }, function () {
        field.select();
      });
    });
  });
}());
