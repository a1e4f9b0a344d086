/// The upload page (issue 14, item 3): a file picker and drop zone naming the accepted
/// formats and the size cap, in a form that posts the file to `/upload` without
/// JavaScript. With JavaScript, `upload.js` sends it to `POST /api/v1/imports` instead
/// (the `File` itself, streamed by the browser, so a multi-gigabyte export is never read
/// into memory), shows a progress bar with a cancel button, follows the import until it
/// is done or failed, and then opens the refreshed dashboard.
public enum UploadView {
    /// The upload page; uploads over `maximumUploadBytes` are refused before they start.
    public static func page(maximumUploadBytes: Int64, csrfToken: String, notice: WebNotice? = nil) -> WebPage {
        let cap = WebFormat.bytes(maximumUploadBytes)
        let body: HTML = """
            <h1>Upload</h1>
            \(notice.html)<p>Send your Apple Health export: on your iPhone, open the Health app, tap your picture at \
            the top right, choose <strong>Export All Health Data</strong>, and share the <code>export.zip</code> to \
            this computer or straight to this page. Samples you sent before are skipped, so sending a newer export \
            adds only what is new.</p>
            <form id="upload-form" class="card upload" method="post" action="\(WebPaths.upload)" \
            enctype="multipart/form-data" data-api="\(WebPaths.importsAPI)" data-max-bytes="\(maximumUploadBytes)">
            \(WebLayout.csrfInput(csrfToken))
            <div class="drop-zone" id="drop-zone">
            <label for="upload-file">Export file</label>
            <input type="file" id="upload-file" name="file" required \
            accept=".zip,.xml,.csv,application/zip,application/xml,text/xml,text/csv" aria-describedby="upload-formats">
            <p id="upload-formats" class="hint">Drop the file here or choose it: <code>export.zip</code>, \
            <code>export.xml</code> or a sleep CSV, up to \(cap).</p>
            </div>
            <div class="actions">
            <button type="submit" id="upload-submit">Upload</button>
            <button type="button" id="upload-cancel" class="secondary" hidden>Cancel upload</button>
            </div>
            <div class="progress" id="upload-progress-block" hidden>
            <label for="upload-progress">Upload progress</label>
            <progress id="upload-progress" max="100" value="0">0%</progress>
            <span id="upload-percent" aria-hidden="true">0%</span>
            </div>
            <p id="upload-status" class="upload-status" role="status" aria-live="polite" data-state="idle"></p>
            <p id="upload-done" hidden><a href="\(WebPaths.dashboard)">Open your dashboard</a> · \
            <a href="\(WebPaths.imports)">See the import</a></p>
            </form>
            <p>Large exports take a while to send; keep this page open until the upload reaches 100%. The import \
            itself then runs on the server, and its progress shows here and on the \
            <a href="\(WebPaths.imports)">Imports</a> page. To have new sleep sent every day without exporting, \
            use Health Auto Export with a token from the <a href="\(WebPaths.tokens)">Tokens</a> page.</p>

            """
        return WebPage(title: "Upload", current: .upload, body: body, scripts: [WebAssets.uploadScript])
    }
}
