/* The tool form's parameters editor and definition preview (admin: Tools > add / change).
   The server does the checking and the rendering (ToolAdmin.definition_preview_view); this only
   sends the form as you edit, shows the answer, and puts the cursor on a fault. */
"use strict";
{
    const DELAY_MS = 400;

    function lineRange(text, line, column) {
        const lines = text.split("\n");
        const index = Math.min(Math.max(line, 1), lines.length) - 1;
        let start = 0;
        for (let i = 0; i < index; i++) start += lines[i].length + 1;
        const from = column ? start + Math.max(column - 1, 0) : start;
        return [Math.min(from, start + lines[index].length), start + lines[index].length];
    }

    function showFault(editor, line, column) {
        const [from, to] = lineRange(editor.value, line, column);
        editor.focus({preventScroll: true});
        editor.setSelectionRange(from, Math.max(to, from + 1));
        const lineHeight = parseFloat(getComputedStyle(editor).lineHeight) || 16;
        editor.scrollTop = Math.max(0, (line - 3) * lineHeight);
        editor.scrollIntoView({block: "center"});
    }

    function selectTab(preview, format) {
        preview.querySelectorAll(".definition-tab").forEach(tab => {
            tab.setAttribute("aria-selected", String(tab.dataset.format === format));
        });
        preview.querySelectorAll("pre.definition").forEach(pre => { pre.hidden = pre.dataset.format !== format; });
    }

    function renderDefinitions(preview, definitions) {
        const current = preview.querySelector('.definition-tab[aria-selected="true"]');
        const chosen = current ? current.dataset.format : Object.keys(definitions)[0];
        const tabs = preview.querySelector(".definition-tabs");
        tabs.replaceChildren();
        preview.querySelectorAll("pre.definition, .definition-empty").forEach(node => node.remove());
        for (const [format, text] of Object.entries(definitions)) {
            const tab = document.createElement("button");
            tab.type = "button";
            tab.className = "definition-tab";
            tab.dataset.format = format;
            tab.setAttribute("role", "tab");
            tab.textContent = format;
            tabs.append(tab);
            const pre = document.createElement("pre");
            pre.className = "definition";
            pre.dataset.format = format;
            pre.textContent = text;
            preview.append(pre);
        }
        selectTab(preview, chosen);
    }

    function setUp(editor) {
        const form = editor.form;
        const preview = form.querySelector(".definition-preview");
        const status = document.createElement("p");
        status.className = "parameters-status";
        status.setAttribute("aria-live", "polite");
        const format = document.createElement("button");
        format.type = "button";
        format.className = "button parameters-format";
        format.textContent = "Format";
        const bar = document.createElement("div");
        bar.className = "parameters-bar";
        bar.append(format, status);
        // Below the editor's row (the admin puts label and field side by side in a flex container).
        const row = editor.closest(".flex-container") || editor;
        row.after(bar);

        let timer = null;
        let sent = 0;
        async function check() {
            if (!preview) return;
            const mine = ++sent;
            const body = new FormData(form);
            const response = await fetch(preview.dataset.previewUrl, {
                method: "POST", body, headers: {"X-CSRFToken": body.get("csrfmiddlewaretoken")}, credentials: "same-origin",
            });
            if (!response.ok || mine !== sent) return;
            const answer = await response.json();
            renderDefinitions(preview, answer.definitions);
            editor.setAttribute("aria-invalid", String(Boolean(answer.fault)));
            status.classList.toggle("errornote", Boolean(answer.fault));
            status.textContent = answer.fault ? answer.fault.message : "Valid JSON Schema.";
            status.dataset.line = answer.fault && answer.fault.line ? answer.fault.line : "";  // none: no one place
            status.dataset.column = answer.fault && answer.fault.column ? answer.fault.column : "";
        }
        const later = () => { clearTimeout(timer); timer = setTimeout(check, DELAY_MS); };

        form.addEventListener("input", later);
        form.addEventListener("change", later);
        status.addEventListener("click", () => {
            if (status.dataset.line) showFault(editor, Number(status.dataset.line), Number(status.dataset.column));
        });
        format.addEventListener("click", () => {
            try {
                editor.value = JSON.stringify(JSON.parse(editor.value || "{}"), null, 2);
            } catch (error) {
                // Not JSON: the check below says where.
            }
            check();
        });
        if (preview) {
            preview.addEventListener("click", event => {
                const tab = event.target.closest(".definition-tab");
                if (tab) selectTab(preview, tab.dataset.format);
            });
        }
        if (editor.dataset.faultLine) {
            showFault(editor, Number(editor.dataset.faultLine), 0);
        } else {
            const message = editor.closest(".form-row") && editor.closest(".form-row").querySelector(".errorlist li");
            const match = message && /^Line (\d+), column (\d+)/.exec(message.textContent);
            if (match) showFault(editor, Number(match[1]), Number(match[2]));
        }
        check();
    }

    window.addEventListener("load", () => {
        document.querySelectorAll("textarea.parameters-editor").forEach(setUp);
    });
}
