# Writes an image manifest after the image is linked (POST_BUILD), so that its SHA-256 is the
# SHA-256 of the file as built. Invoked as:
#   cmake -DIMAGE=<.so> -DOUT=<manifest.json> -DNAME=... -DPROFILE=... -DPROFILE_ID=...
#         -DBUILD_ID=<16 hex> -DCAPS=... -DXLEN=... -DFMAX=... -DRTL_DIGEST=... -DVERILATOR=...
#         -DLOG_QDEPTH=... -DLOG_FIFO=... -DMUTANT=... -DABI=... [-DFEATURES=a,b]
#         [-DFEATURE_CAPS=n] [-DRAS_DEPTH=d] -P write_manifest.cmake
foreach(var IMAGE OUT NAME PROFILE PROFILE_ID BUILD_ID CAPS XLEN FMAX RTL_DIGEST VERILATOR
            LOG_QDEPTH LOG_FIFO MUTANT ABI)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "write_manifest.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT EXISTS "${IMAGE}")
  message(FATAL_ERROR "write_manifest.cmake: image '${IMAGE}' does not exist")
endif()
if(NOT DEFINED FEATURE_CAPS)
  set(FEATURE_CAPS 0)
endif()
if(NOT DEFINED RAS_DEPTH)
  set(RAS_DEPTH 0)
endif()
# "features": the compiled optional features (docs/encoder-behaviour.md section 11).
set(features_json "")
if(DEFINED FEATURES AND NOT FEATURES STREQUAL "")
  string(REPLACE "," ";" _fl "${FEATURES}")
  foreach(f IN LISTS _fl)
    if(NOT features_json STREQUAL "")
      string(APPEND features_json ", ")
    endif()
    string(APPEND features_json "\"${f}\"")
  endforeach()
endif()
file(SHA256 "${IMAGE}" image_sha256)
get_filename_component(image_file "${IMAGE}" NAME)
file(WRITE "${OUT}.tmp" "{
  \"name\": \"${NAME}\",
  \"image\": \"${image_file}\",
  \"sha256\": \"${image_sha256}\",
  \"build_id\": \"0x${BUILD_ID}\",
  \"profile\": \"${PROFILE}\",
  \"profile_id\": ${PROFILE_ID},
  \"caps\": ${CAPS},
  \"xlen\": ${XLEN},
  \"fmax_mhz\": ${FMAX},
  \"log2_qdepth\": ${LOG_QDEPTH},
  \"log2_fifo_depth\": ${LOG_FIFO},
  \"mutant\": ${MUTANT},
  \"features\": [${features_json}],
  \"feature_caps\": ${FEATURE_CAPS},
  \"return_stack_depth\": ${RAS_DEPTH},
  \"abi_version\": ${ABI},
  \"rtl_digest\": \"${RTL_DIGEST}\",
  \"verilator_version\": \"${VERILATOR}\"
}
")
file(RENAME "${OUT}.tmp" "${OUT}")
