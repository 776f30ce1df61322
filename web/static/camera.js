/* tableref: the phone as the table's camera (/camera, host only).
   Takes the rear camera at about 1280x720, draws the seat zones over the live picture to aim,
   keeps the screen awake, and sends one JPEG frame at a time to /api/camera/frame. The server
   answers once the table session has taken the frame, and only then is the next one sent, so
   frames go at the rate the server analyses them and nothing queues up. */
"use strict";
(() => {
  const STR = JSON.parse(document.getElementById("i18n").textContent || "{}");
  const T = (k) => (k in STR ? STR[k] : k);
  const $ = (sel) => document.querySelector(sel);
  const HOST = document.body.dataset.host === "yes";
  const video = $("#cam-video"), overlay = $("#cam-overlay");
  const stateEl = $("#phone-state"), statsEl = $("#phone-stats"), errEl = $("#phone-error");
  const startBtn = $("#camera-start"), stopBtn = $("#camera-stop");
  const grabber = document.createElement("canvas");
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const MAX_WIDTH = 1280, QUALITY = 0.8;
  let stream = null, running = false, wakeLock = null, zones = null;
  const stats = { sent: 0, refused: 0, dropped: 0, fps: 0 };

  function csrf() { return document.querySelector('meta[name="csrf-token"]').content; }
  function setState(key, cls) {
    stateEl.textContent = T(key);
    stateEl.className = "badge " + (cls || "");
    document.body.dataset.phoneState = key;
  }
  function showError(text) { errEl.textContent = text; errEl.hidden = !text; }
  // what the table says of the picture this phone sends, where there is something to fix here
  const pictureEl = $("#phone-picture");
  const PICTURE_TO_FIX = ["blurred", "soft", "small"];
  function showPicture(picture) {
    const text = picture && PICTURE_TO_FIX.includes(picture.status) ? picture.say || "" : "";
    pictureEl.textContent = text; pictureEl.hidden = !text;
    document.body.dataset.picture = text ? picture.status : "";
  }
  function showStats() {
    statsEl.textContent = [T("camera_sent") + " " + stats.sent,
      T("camera_analysed") + " " + stats.fps.toFixed(1) + "/s",
      T("camera_dropped") + " " + stats.dropped,
      stats.refused ? T("camera_refused") + " " + stats.refused : ""].filter(Boolean).join(" · ");
  }

  // ---------------------------------------------------------------- zones drawn over the picture
  async function loadZones() {
    try {
      const r = await fetch("/api/camera/zones", { credentials: "same-origin", cache: "no-store" });
      if (r.ok) { zones = await r.json(); drawZones(); }
    } catch (e) { /* the next try is in 10 s */ }
  }
  function drawZones() {
    const box = video.getBoundingClientRect();
    overlay.width = Math.round(box.width); overlay.height = Math.round(box.height);
    const g = overlay.getContext("2d");
    g.clearRect(0, 0, overlay.width, overlay.height);
    if (!zones || !video.videoWidth) return;
    // the picture is letter-boxed inside the element (object-fit: contain)
    const s = Math.min(box.width / video.videoWidth, box.height / video.videoHeight);
    const w = video.videoWidth * s, h = video.videoHeight * s;
    const ox = (box.width - w) / 2, oy = (box.height - h) / 2;
    const colours = ["#ffd000", "#00e0ff", "#ff6bd6", "#8dff6b", "#ff8a3d"];
    const path = (pts) => {
      g.beginPath();
      pts.forEach(([x, y], i) => (i ? g.lineTo(ox + x * w, oy + y * h) : g.moveTo(ox + x * w, oy + y * h)));
      g.closePath(); g.stroke();
    };
    g.lineWidth = 3; g.font = "bold 15px system-ui, sans-serif";
    zones.seats.forEach((z, i) => {
      g.strokeStyle = g.fillStyle = colours[i % colours.length];
      path(z.polygon);
      const cx = z.polygon.reduce((a, p) => a + p[0], 0) / z.polygon.length;
      const cy = z.polygon.reduce((a, p) => a + p[1], 0) / z.polygon.length;
      const label = z.name || (T("seat") + " " + (i + 1));
      const tw = g.measureText(label).width;
      g.fillText(label, Math.min(Math.max(ox + cx * w - tw / 2, ox + 4), ox + w - tw - 4),
                 Math.min(Math.max(oy + cy * h, oy + 18), oy + h - 6));
    });
    g.strokeStyle = "#ffffff"; g.setLineDash([8, 6]); path(zones.centre); g.setLineDash([]);
  }

  // ---------------------------------------------------------------- the screen stays on
  async function keepAwake() {
    if (!("wakeLock" in navigator) || document.visibilityState !== "visible") return;
    try { wakeLock = await navigator.wakeLock.request("screen"); } catch (e) { wakeLock = null; }
  }
  document.addEventListener("visibilitychange", () => { if (running && document.visibilityState === "visible") keepAwake(); });

  // ---------------------------------------------------------------- frames to the server
  function grab() {
    const scale = Math.min(1, MAX_WIDTH / video.videoWidth);
    grabber.width = Math.round(video.videoWidth * scale);
    grabber.height = Math.round(video.videoHeight * scale);
    grabber.getContext("2d").drawImage(video, 0, 0, grabber.width, grabber.height);
    return new Promise((resolve) => grabber.toBlob(resolve, "image/jpeg", QUALITY));
  }

  async function sendLoop() {
    while (running) {
      if (video.readyState < 2 || !video.videoWidth) { await sleep(100); continue; }
      const blob = await grab();
      if (!blob) { await sleep(100); continue; }
      let resp, data = {};
      try {
        resp = await fetch("/api/camera/frame", { method: "POST", credentials: "same-origin", cache: "no-store",
          headers: { "Content-Type": "image/jpeg", "X-CSRF-Token": csrf() }, body: blob });
      } catch (e) {
        setState("camera_offline", "cam-reconnecting");
        await sleep(1000);
        continue;
      }
      try { data = await resp.json(); } catch (e) { data = { error: resp.statusText }; }
      if (resp.ok) {
        stats.sent += 1; stats.dropped = data.dropped; stats.fps = data.analysed_fps || 0;
        stats.refused = data.refused || 0;
        setState("camera_sending", "cam-ok"); showError(""); showStats(); showPicture(data.picture);
        continue;
      }
      stats.refused += 1; showStats();
      if (resp.status === 429 || resp.status === 503) {
        if (resp.status === 503) { setState("camera_starting", "cam-connecting"); showError(data.say || data.error || ""); }
        await sleep(data.retry_after_ms || 200);
        continue;
      }
      showError(data.say || data.error || resp.statusText);
      if (resp.status === 401 || resp.status === 403) { stop(); setState("camera_login", "cam-error"); return; }
      setState("camera_refused_state", "cam-stale");
      await sleep(2000);      // not the phone's turn (409) or a bad frame: try again, never give up
    }
  }

  async function start() {
    showError("");
    if (!window.isSecureContext || !navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      $("#camera-insecure").hidden = false;
      setState("camera_no_access", "cam-error");
      return;
    }
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: false, video: {
        facingMode: { ideal: "environment" }, width: { ideal: 1280 }, height: { ideal: 720 } } });
    } catch (e) {
      setState("camera_no_access", "cam-error");
      showError(T("camera_denied") + " (" + (e.name || e) + ")");
      return;
    }
    stream.getVideoTracks().forEach((tr) => tr.addEventListener("ended", () => {
      if (!running) return;
      showError(T("camera_track_ended"));
      stop(); setTimeout(start, 1500);
    }));
    // continuous autofocus where the browser lets a page ask for it (the cards must be sharp)
    for (const tr of stream.getVideoTracks()) {
      const caps = tr.getCapabilities ? tr.getCapabilities() : {};
      if ((caps.focusMode || []).includes("continuous")) {
        tr.applyConstraints({ advanced: [{ focusMode: "continuous" }] }).catch(() => {});
      }
    }
    video.srcObject = stream;
    try { await video.play(); } catch (e) { /* autoplay of a muted video is allowed */ }
    running = true;
    if (startBtn) startBtn.hidden = true;
    if (stopBtn) stopBtn.hidden = false;
    setState("camera_starting", "cam-connecting");
    keepAwake();
    drawZones();
    sendLoop();
  }

  function stop() {
    running = false;
    showPicture(null);
    if (stream) stream.getTracks().forEach((tr) => tr.stop());
    stream = null;
    if (wakeLock) { wakeLock.release().catch(() => {}); wakeLock = null; }
    if (startBtn) startBtn.hidden = false;
    if (stopBtn) stopBtn.hidden = true;
    setState("camera_idle", "");
  }

  if (!window.isSecureContext) $("#camera-insecure").hidden = false;
  video.addEventListener("loadedmetadata", drawZones);
  window.addEventListener("resize", drawZones);
  loadZones();
  setInterval(loadZones, 10000);
  if (startBtn) startBtn.addEventListener("click", start);
  if (stopBtn) stopBtn.addEventListener("click", stop);
  if (HOST) start();     // the host came here to do this; the button is there if the browser wants a tap
})();
