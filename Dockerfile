FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
WORKDIR /app
# The CPU build of torch first, so the pinned requirements never pull a CUDA build.
RUN pip install --no-cache-dir torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
RUN useradd --create-home app && chown -R app /app
USER app
RUN DJANGO_DEBUG=1 python manage.py collectstatic --no-input -v 0
# The local embedding models, once: all-MiniLM-L6-v2 adapted to tool routing (the default) and as packaged,
# both exported to ONNX (web processes never load torch; the worker may, for bf16 batches).
RUN python -m toolcatalog.local_model
EXPOSE 8000
