"""Operations: health and readiness endpoints, Prometheus metrics, clean startup errors."""
