// SleepLedger upload page: sends the chosen file to POST /api/v1/imports with a progress
// bar and a cancel button, then follows the import (GET /api/v1/imports/{id}) until it is
// done or failed, and opens the refreshed dashboard. The File object is handed to the
// browser, which streams it: a multi-gigabyte export is never read into memory here.
// Without JavaScript the form posts to /upload instead.
(function () {
  'use strict';
  var form = document.getElementById('upload-form');
  if (!form || !window.XMLHttpRequest || !window.FormData) { return; }
  var meta = document.querySelector('meta[name="csrf-token"]');
  var csrfToken = meta ? meta.getAttribute('content') : '';
  var input = document.getElementById('upload-file');
  var zone = document.getElementById('drop-zone');
  var submit = document.getElementById('upload-submit');
  var cancel = document.getElementById('upload-cancel');
  var block = document.getElementById('upload-progress-block');
  var bar = document.getElementById('upload-progress');
  var percent = document.getElementById('upload-percent');
  var status = document.getElementById('upload-status');
  var done = document.getElementById('upload-done');
  var api = form.getAttribute('data-api');
  var request = null;
  var pollTimer = null;
  var earlier = false;

  function show(state, text) {
    status.setAttribute('data-state', state);
    status.textContent = text;
  }

  function sizeText(bytes) {
    var units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
    var value = bytes;
    var unit = 0;
    while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
    return (unit === 0 ? value : value.toFixed(1)) + ' ' + units[unit];
  }

  function errorMessage(xhr) {
    try {
      var body = JSON.parse(xhr.responseText);
      if (body && body.error && body.error.message) { return body.error.message; }
    } catch (ignored) { /* not JSON */ }
    return 'the server answered ' + xhr.status;
  }

  function setBusy(busy) {
    submit.disabled = busy;
    input.disabled = busy;
    cancel.hidden = !busy;
  }

  function setProgress(fraction) {
    var value = Math.max(0, Math.min(100, Math.floor(fraction * 100)));
    bar.value = value;
    bar.textContent = value + '%';
    percent.textContent = value + '%';
  }

  function countsText(counts) {
    if (!counts) { return ''; }
    return ': ' + counts.inserted + ' new samples, ' + counts.duplicate + ' already stored, ' +
      counts.rejected + ' rejected';
  }

  function follow(id, delay) {
    pollTimer = window.setTimeout(function () {
      var xhr = new XMLHttpRequest();
      xhr.open('GET', api + '/' + encodeURIComponent(id));
      xhr.setRequestHeader('Accept', 'application/json');
      xhr.onload = function () {
        if (xhr.status !== 200) {
          show('failed', 'Could not follow the import: ' + errorMessage(xhr) + '.');
          done.hidden = false;
          return;
        }
        var item;
        try { item = JSON.parse(xhr.responseText).import; } catch (ignored) { item = null; }
        if (!item) { show('failed', 'Could not read the import\u2019s state.'); return; }
        report(item, delay);
      };
      xhr.onerror = function () { follow(id, Math.min(delay * 2, 10000)); };
      xhr.send();
    }, delay);
  }

  function report(item, delay) {
    switch (item.state) {
    case 'queued':
      show('queued', 'Uploaded. The import is queued and starts shortly\u2026');
      follow(item.id, Math.min(delay * 1.5, 5000));
      break;
    case 'running':
      show('running', 'Importing\u2026 This takes a few seconds to a few minutes for a large export.');
      follow(item.id, Math.min(delay * 1.5, 5000));
      break;
    case 'done':
      show('done', (earlier ? 'You sent this file before; it was imported' : 'Imported') +
        countsText(item.counts) + '. Opening your dashboard\u2026');
      done.hidden = false;
      window.setTimeout(function () { window.location.assign('/'); }, 1500);
      break;
    case 'failed':
      show('failed', 'The import failed: ' + (item.error || 'no reason was given') + '.');
      done.hidden = false;
      break;
    default:
      show(item.state, 'The import was ' + item.state + '.');
      done.hidden = false;
    }
  }

  function start(file) {
    var maxBytes = Number(form.getAttribute('data-max-bytes')) || 0;
    if (maxBytes > 0 && file.size > maxBytes) {
      show('failed', file.name + ' is ' + sizeText(file.size) + ', more than the ' + sizeText(maxBytes) +
        ' this server accepts.');
      return;
    }
    var data = new FormData();
    data.append('file', file, file.name);
    var xhr = new XMLHttpRequest();
    request = xhr;
    xhr.open('POST', api);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.setRequestHeader('X-CSRF-Token', csrfToken);
    xhr.upload.onprogress = function (event) {
      if (event.lengthComputable && event.total > 0) { setProgress(event.loaded / event.total); }
    };
    xhr.upload.onload = function () {
      setProgress(1);
      show('processing', 'Upload complete. Checking the file\u2026');
    };
    xhr.onload = function () {
      request = null;
      setBusy(false);
      if (xhr.status === 200 || xhr.status === 202) {
        setProgress(1);
        var item;
        try { item = JSON.parse(xhr.responseText).import; } catch (ignored) { item = null; }
        if (!item) { show('failed', 'The server\u2019s answer could not be read.'); return; }
        earlier = xhr.status === 200;
        report(item, 1000);
      } else {
        show('failed', 'The upload was refused: ' + errorMessage(xhr) + '.');
      }
    };
    xhr.onerror = function () {
      request = null;
      setBusy(false);
      show('failed', 'The upload stopped: the connection to the server was lost.');
    };
    xhr.onabort = function () {
      request = null;
      setBusy(false);
      setProgress(0);
      block.hidden = true;
      show('cancelled', 'Upload cancelled. Nothing was stored.');
    };
    setBusy(true);
    done.hidden = true;
    block.hidden = false;
    setProgress(0);
    show('uploading', 'Uploading ' + file.name + ' (' + sizeText(file.size) + ')\u2026');
    xhr.send(data);
  }

  form.addEventListener('submit', function (event) {
    var file = input.files && input.files[0];
    if (!file) { return; }
    event.preventDefault();
    if (pollTimer) { window.clearTimeout(pollTimer); pollTimer = null; }
    earlier = false;
    start(file);
  });

  cancel.addEventListener('click', function () {
    if (request) { request.abort(); }
  });

  ['dragenter', 'dragover'].forEach(function (name) {
    zone.addEventListener(name, function (event) {
      event.preventDefault();
      zone.classList.add('dragging');
    });
  });
  ['dragleave', 'drop'].forEach(function (name) {
    zone.addEventListener(name, function () { zone.classList.remove('dragging'); });
  });
  zone.addEventListener('drop', function (event) {
    event.preventDefault();
    if (request || !event.dataTransfer || !event.dataTransfer.files.length) { return; }
    try { input.files = event.dataTransfer.files; } catch (ignored) { /* older browsers */ }
    start(event.dataTransfer.files[0]);
  });

  window.addEventListener('beforeunload', function (event) {
    if (request) { event.preventDefault(); event.returnValue = ''; }
  });
}());
