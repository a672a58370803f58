# Writes an image manifest after the image is linked (POST_BUILD), so that its SHA-256 is the
# SHA-256 of the file as built. Invoked as:
#   cmake -DIMAGE=<.so> -DOUT=<manifest.json> -DNAME=... -DPROFILE=... -DPROFILE_ID=...
#         -DBUILD_ID=<16 hex> -DCAPS=... -DXLEN=... -DFMAX=... -DRTL_DIGEST=... -DVERILATOR=...
#         -DLOG_QDEPTH=... -DLOG_FIFO=... -DMUTANT=... -DABI=... [-DFEATURES=a,b]
#         [-DFEATURE_CAPS=n] [-DRAS_DEPTH=d]
#         -DREGMAP=<regmap.json> -DHARNESS_REGMAP=<lab/zynq/harness_regmap.json> -P write_manifest.cmake
# "registers" is the design's register map (name -> offset): the encoder's registers from
# regmap/regmap.json and the ZynqBoard harness's (docs/zynq-board.md).
foreach(var IMAGE OUT NAME PROFILE PROFILE_ID BUILD_ID CAPS XLEN FMAX RTL_DIGEST VERILATOR
            LOG_QDEPTH LOG_FIFO MUTANT ABI REGMAP HARNESS_REGMAP)
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
set(registers "")
foreach(map_file "${REGMAP}" "${HARNESS_REGMAP}")
  file(READ "${map_file}" map_doc)
  string(JSON nreg LENGTH "${map_doc}" registers)
  math(EXPR last "${nreg} - 1")
  foreach(i RANGE ${last})
    string(JSON rname GET "${map_doc}" registers ${i} name)
    string(JSON roff GET "${map_doc}" registers ${i} offset)
    if(NOT registers STREQUAL "")
      string(APPEND registers ",")
    endif()
    string(APPEND registers "\n    \"${rname}\": \"${roff}\"")
  endforeach()
endforeach()
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
  \"verilator_version\": \"${VERILATOR}\",
  \"registers\": {${registers}
  }
}
")
file(RENAME "${OUT}.tmp" "${OUT}")
