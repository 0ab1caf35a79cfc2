{{/*
Labels of a component's objects, as deploy/base sets them: the component's selector labels and
app.kubernetes.io/part-of. The argument is the component: "controller" or "webhook".
*/}}
{{- define "certgate.labels" -}}
{{ include "certgate.selectorLabels" . }}
app.kubernetes.io/part-of: certgate
{{- end }}

{{/*
Labels of the objects an optional part adds (deploy/components/*): the selector labels only.
deploy/base's `labels:` (app.kubernetes.io/part-of) does not reach a component's resources, and
the chart renders what Kustomize renders.
*/}}
{{- define "certgate.addedLabels" -}}
{{ include "certgate.selectorLabels" . }}
{{- end }}

{{/* The labels that select a component's pods. */}}
{{- define "certgate.selectorLabels" -}}
app.kubernetes.io/name: certgate
app.kubernetes.io/component: {{ . }}
{{- end }}

{{/* The image reference: repository@digest, or repository:tag (tag defaults to appVersion). */}}
{{- define "certgate.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end }}

{{/*
The pod template's metadata and the scheduling and security settings of a component's pod spec.
Argument: (dict "root" $ "component" "controller"). A component's own value wins over the
top-level one when set. Optional keys: "values" (the component's values when they are not
.Values.<component>, as for edge.envoy), "fsGroup" (added to the pod securityContext unless it
sets one: pods mounting a Secret with defaultMode 0440) and "noSpread" (no default
topologySpreadConstraints: a DaemonSet).
*/}}
{{- define "certgate.podMetadata" -}}
{{- $v := .root.Values -}}
{{- $c := .values | default (index $v .component) -}}
{{- $annotations := merge (dict) ($c.podAnnotations | default dict) ($v.podAnnotations | default dict) -}}
{{- $labels := merge (dict "app.kubernetes.io/name" "certgate" "app.kubernetes.io/component" .component) ($c.podLabels | default dict) ($v.podLabels | default dict) -}}
{{- with $annotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
labels:
  {{- toYaml $labels | nindent 2 }}
{{- end }}

{{- define "certgate.podScheduling" -}}
{{- $v := .root.Values -}}
{{- $c := .values | default (index $v .component) -}}
{{- with $v.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with ($c.priorityClassName | default $v.priorityClassName) }}
priorityClassName: {{ . | quote }}
{{- end }}
{{- with ($c.nodeSelector | default $v.nodeSelector) }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with ($c.tolerations | default $v.tolerations) }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with ($c.affinity | default $v.affinity) }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- $podSecurityContext := deepCopy ($v.podSecurityContext | default dict) -}}
{{- if .fsGroup }}
{{- $podSecurityContext = merge $podSecurityContext (dict "fsGroup" .fsGroup) -}}
{{- end }}
{{- with $podSecurityContext }}
securityContext:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- if .noSpread }}
{{- else if kindIs "invalid" $c.topologySpreadConstraints }}
topologySpreadConstraints:
{{- range list "kubernetes.io/hostname" "topology.kubernetes.io/zone" }}
- maxSkew: 1
  topologyKey: {{ . }}
  whenUnsatisfiable: ScheduleAnyway
  labelSelector:
    matchLabels:
      {{- include "certgate.selectorLabels" $.component | nindent 6 }}
{{- end }}
{{- else if $c.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml $c.topologySpreadConstraints | nindent 2 }}
{{- end }}
{{- end }}

{{/* The container's resources and securityContext. Argument as for certgate.podScheduling. */}}
{{- define "certgate.containerSettings" -}}
{{- $v := .root.Values -}}
{{- $c := .values | default (index $v .component) -}}
{{- with ($c.resources | default $v.resources) }}
resources:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.securityContext }}
securityContext:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
The PodDisruptionBudget of a component. Argument as for certgate.podScheduling; with "added" true
it is labelled as the objects of an optional part (certgate.addedLabels).
*/}}
{{- define "certgate.podDisruptionBudget" -}}
{{- $c := index .root.Values .component -}}
{{- if $c.podDisruptionBudget.enabled }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: certgate-{{ .component }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include (ternary "certgate.addedLabels" "certgate.labels" (default false .added)) .component | nindent 4 }}
spec:
  {{- if hasKey $c.podDisruptionBudget "maxUnavailable" }}
  maxUnavailable: {{ $c.podDisruptionBudget.maxUnavailable }}
  {{- else }}
  minAvailable: {{ $c.podDisruptionBudget.minAvailable }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "certgate.selectorLabels" .component | nindent 6 }}
{{- end }}
{{- end }}

{{/* The plain-HTTP metrics Service of a component. Argument: (dict "root" $ "component" c "targetPort" p). */}}
{{- define "certgate.metricsService" -}}
apiVersion: v1
kind: Service
metadata:
  name: certgate-{{ .component }}-metrics
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "certgate.labels" .component | nindent 4 }}
spec:
  type: ClusterIP
  selector:
    {{- include "certgate.selectorLabels" .component | nindent 4 }}
  ports:
  - name: metrics
    port: 9402
    targetPort: {{ .targetPort }}
    protocol: TCP
{{- end }}
