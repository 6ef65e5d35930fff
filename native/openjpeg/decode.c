// Template 5.40's codestream decoded by the system's OpenJPEG (libopenjp2, the library ecCodes uses),
// scaled straight into the caller's Float32Array: decode(codestream, out, binaryFactor, reference,
// decimalFactor) → [width, height, components, precision, signed]. The values are written only when
// the image is one unsigned component of at most 16 bits with out.length samples; the caller checks
// the returned facts and refuses anything else, as for the WebAssembly build.
#include <node_api.h>
#include <openjpeg.h>
#include <stdio.h>
#include <string.h>

typedef struct { const unsigned char *data; size_t size; size_t pos; } memory_stream;

static OPJ_SIZE_T stream_read (void *buffer, OPJ_SIZE_T n, void *user) {
  memory_stream *m = user;
  if (m->pos >= m->size) return (OPJ_SIZE_T)-1;
  size_t left = m->size - m->pos;
  if (n > left) n = left;
  memcpy(buffer, m->data + m->pos, n);
  m->pos += n;
  return n;
}

static OPJ_OFF_T stream_skip (OPJ_OFF_T n, void *user) {
  memory_stream *m = user;
  if (n < 0) {
    if ((size_t)(-n) > m->pos) n = -(OPJ_OFF_T)m->pos;
  } else if ((size_t)n > m->size - m->pos) {
    n = (OPJ_OFF_T)(m->size - m->pos);
  }
  m->pos += (size_t)n;
  return n;
}

static OPJ_BOOL stream_seek (OPJ_OFF_T n, void *user) {
  memory_stream *m = user;
  if (n < 0 || (size_t)n > m->size) return OPJ_FALSE;
  m->pos = (size_t)n;
  return OPJ_TRUE;
}

// OpenJPEG reports through callbacks; keep the first error for the exception's message.
static void on_error (const char *msg, void *user) {
  char *first = user;
  if (first[0] == 0) snprintf(first, 256, "%s", msg);
}
static void on_quiet (const char *msg, void *user) { (void)msg; (void)user; }

static napi_value fail (napi_env env, const char *code, const char *message) {
  napi_throw_error(env, code, message);
  return NULL;
}

static napi_value decode (napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 5) {
    return fail(env, "ERR_ARGS", "decode(codestream, out, binaryFactor, reference, decimalFactor)");
  }
  napi_typedarray_type in_type, out_type;
  size_t in_length, out_length;
  void *in_data, *out_data;
  if (napi_get_typedarray_info(env, argv[0], &in_type, &in_length, &in_data, NULL, NULL) != napi_ok ||
      in_type != napi_uint8_array ||
      napi_get_typedarray_info(env, argv[1], &out_type, &out_length, &out_data, NULL, NULL) != napi_ok ||
      out_type != napi_float32_array) {
    return fail(env, "ERR_ARGS", "decode wants a Uint8Array codestream and a Float32Array out");
  }
  double bs, reference, ds;
  if (napi_get_value_double(env, argv[2], &bs) != napi_ok || napi_get_value_double(env, argv[3], &reference) != napi_ok ||
      napi_get_value_double(env, argv[4], &ds) != napi_ok) {
    return fail(env, "ERR_ARGS", "decode wants numbers for the scaling");
  }

  memory_stream source = { in_data, in_length, 0 };
  char first_error[256] = { 0 };
  opj_stream_t *stream = opj_stream_create(1 << 16, OPJ_TRUE);
  opj_codec_t *codec = opj_create_decompress(OPJ_CODEC_J2K);
  opj_image_t *image = NULL;
  if (stream == NULL || codec == NULL) {
    if (stream != NULL) opj_stream_destroy(stream);
    if (codec != NULL) opj_destroy_codec(codec);
    return fail(env, "ERR_NO_MEMORY", "OpenJPEG could not allocate a decoder");
  }
  opj_stream_set_user_data(stream, &source, NULL);
  opj_stream_set_user_data_length(stream, in_length);
  opj_stream_set_read_function(stream, stream_read);
  opj_stream_set_skip_function(stream, stream_skip);
  opj_stream_set_seek_function(stream, stream_seek);
  opj_set_error_handler(codec, on_error, first_error);
  opj_set_warning_handler(codec, on_quiet, NULL);
  opj_set_info_handler(codec, on_quiet, NULL);

  opj_dparameters_t parameters;
  opj_set_default_decoder_parameters(&parameters);
  int ok = opj_setup_decoder(codec, &parameters) && opj_read_header(stream, codec, &image) &&
    opj_decode(codec, stream, image) && opj_end_decompress(codec, stream);
  opj_stream_destroy(stream);
  opj_destroy_codec(codec);
  if (!ok || image == NULL || image->numcomps == 0 || image->comps[0].data == NULL) {
    if (image != NULL) opj_image_destroy(image);
    return fail(env, "ERR_DECODE", first_error[0] != 0 ? first_error : "the codestream does not decode");
  }

  opj_image_comp_t *c = &image->comps[0];
  uint32_t facts[5] = { c->w, c->h, image->numcomps, c->prec, c->sgnd };
  if (image->numcomps == 1 && c->prec <= 16 && !c->sgnd && (size_t)c->w * c->h == out_length) {
    // the same arithmetic as the JavaScript paths: in double, rounded once to float32
    const OPJ_INT32 *v = c->data;
    float *out = out_data;
    for (size_t i = 0; i < out_length; i++) out[i] = (float)(((double)v[i] * bs + reference) * ds);
  }
  opj_image_destroy(image);

  napi_value result, item;
  napi_create_array_with_length(env, 5, &result);
  for (uint32_t k = 0; k < 5; k++) {
    napi_create_uint32(env, facts[k], &item);
    napi_set_element(env, result, k, item);
  }
  return result;
}

static napi_value version (napi_env env, napi_callback_info info) {
  (void)info;
  napi_value text;
  napi_create_string_utf8(env, opj_version(), NAPI_AUTO_LENGTH, &text);
  return text;
}

NAPI_MODULE_INIT () {
  napi_value fn;
  napi_create_function(env, "decode", NAPI_AUTO_LENGTH, decode, NULL, &fn);
  napi_set_named_property(env, exports, "decode", fn);
  napi_create_function(env, "version", NAPI_AUTO_LENGTH, version, NULL, &fn);
  napi_set_named_property(env, exports, "version", fn);
  return exports;
}
