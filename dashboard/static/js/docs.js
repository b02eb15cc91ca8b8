// The API reference: Swagger UI over the service's own OpenAPI schema (vendored, no CDN).
window.SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger" });
